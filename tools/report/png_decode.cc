// PNG decoding through Debian's libpng (its simplified API), alpha composited here.
#include "tools/report/png_decode.h"

#include <png.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace report {

absl::StatusOr<Image> DecodePng(const std::string& bytes) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) {
    const std::string why = png.message;
    png_image_free(&png);
    return absl::InvalidArgumentError(absl::StrCat("not a PNG libpng can read: ", why));
  }
  if (png.width == 0 || png.height == 0 || png.width > 20000 || png.height > 20000) {
    png_image_free(&png);
    return absl::InvalidArgumentError(absl::StrCat("PNG size ", png.width, " x ", png.height, " out of range"));
  }
  // 8-bit sRGB RGBA whatever the file holds (grey, palette, 16-bit and interlaced included).
  png.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, rgba.data(), 0, nullptr)) {
    const std::string why = png.message;
    png_image_free(&png);
    return absl::InvalidArgumentError(absl::StrCat("PNG image data: ", why));
  }
  Image img;
  img.width = static_cast<int>(png.width);
  img.height = static_cast<int>(png.height);
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  // Over white, in the file's sRGB values, rounded: c a / 255 + 255 (255 - a) / 255.
  for (size_t p = 0, n = static_cast<size_t>(img.width) * img.height; p < n; ++p) {
    const unsigned a = rgba[p * 4 + 3];
    for (int c = 0; c < 3; ++c) {
      img.rgb[p * 3 + c] = static_cast<uint8_t>((rgba[p * 4 + c] * a + 255u * (255u - a) + 127u) / 255u);
    }
  }
  return img;
}

absl::StatusOr<Image> ReadPng(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read PNG '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  auto img = DecodePng(ss.str());
  if (!img.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", img.status().message()));
  return img;
}

}  // namespace report
