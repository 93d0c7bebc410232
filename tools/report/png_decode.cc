// PNG chunks -> zlib inflate -> unfilter -> RGB.
#include "tools/report/png_decode.h"

#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace report {
namespace {

uint32_t Be32(const std::string& b, size_t at) {
  return (uint32_t{static_cast<uint8_t>(b[at])} << 24) | (uint32_t{static_cast<uint8_t>(b[at + 1])} << 16) |
         (uint32_t{static_cast<uint8_t>(b[at + 2])} << 8) | uint32_t{static_cast<uint8_t>(b[at + 3])};
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// raw: (height, 1 + width * channels), each row its filter byte then the filtered bytes;
// returns the (height, width * channels) pixels.
absl::StatusOr<std::vector<uint8_t>> Unfilter(const std::vector<uint8_t>& raw, int width, int height,
                                              int channels) {
  const size_t stride = static_cast<size_t>(width) * channels;
  std::vector<uint8_t> pixels(stride * height);
  for (int y = 0; y < height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &pixels[y * stride];
    const uint8_t* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? out[i - channels] : 0;
      const int b = up ? up[i] : 0;
      const int c = (up && i >= static_cast<size_t>(channels)) ? up[i - channels] : 0;
      int v = in[i];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: v += Paeth(a, b, c); break;
        default:
          return absl::InvalidArgumentError(absl::StrCat("PNG row ", y, " has filter type ", int{filter}));
      }
      out[i] = static_cast<uint8_t>(v & 0xff);
    }
  }
  return pixels;
}

// pixels: (height, width * channels), grey/grey+alpha/RGB/RGBA; img->rgb: the same over white.
void CompositeOverWhite(const std::vector<uint8_t>& pixels, int channels, Image* image) {
  Image& img = *image;
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  for (size_t p = 0; p < static_cast<size_t>(img.width) * img.height; ++p) {
    const uint8_t* px = &pixels[p * channels];
    int r, g, b, alpha = 255;
    if (channels <= 2)
      r = g = b = px[0];
    else
      r = px[0], g = px[1], b = px[2];
    if (channels == 2) alpha = px[1];
    if (channels == 4) alpha = px[3];
    auto over_white = [alpha](int v) { return (v * alpha + 255 * (255 - alpha) + 127) / 255; };
    img.rgb[p * 3] = static_cast<uint8_t>(over_white(r));
    img.rgb[p * 3 + 1] = static_cast<uint8_t>(over_white(g));
    img.rgb[p * 3 + 2] = static_cast<uint8_t>(over_white(b));
  }
}

}  // namespace

absl::StatusOr<Image> DecodePng(const std::string& bytes) {
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 || bytes.compare(0, 8, kSignature, 8) != 0) {
    return absl::InvalidArgumentError("not a PNG (bad signature)");
  }
  Image img;
  int colour_type = -1, channels = 0;
  std::string idat;
  size_t at = 8;
  bool ended = false;
  while (at + 12 <= bytes.size() && !ended) {
    const uint32_t len = Be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + len > bytes.size())
      return absl::InvalidArgumentError(absl::StrCat("PNG chunk ", type, " is truncated"));
    const size_t data = at + 8;
    if (type == "IHDR") {
      if (len < 13) return absl::InvalidArgumentError("PNG IHDR too short");
      img.width = static_cast<int>(Be32(bytes, data));
      img.height = static_cast<int>(Be32(bytes, data + 4));
      const int depth = static_cast<uint8_t>(bytes[data + 8]);
      colour_type = static_cast<uint8_t>(bytes[data + 9]);
      const int interlace = static_cast<uint8_t>(bytes[data + 12]);
      if (depth != 8) return absl::UnimplementedError(absl::StrCat("PNG bit depth ", depth, " (only 8)"));
      if (interlace != 0) return absl::UnimplementedError("interlaced PNG");
      switch (colour_type) {
        case 0: channels = 1; break;
        case 2: channels = 3; break;
        case 4: channels = 2; break;
        case 6: channels = 4; break;
        default:
          return absl::UnimplementedError(absl::StrCat("PNG colour type ", colour_type, " (palette?)"));
      }
      if (img.width <= 0 || img.height <= 0 || img.width > 20000 || img.height > 20000) {
        return absl::InvalidArgumentError("PNG size out of range");
      }
    } else if (type == "IDAT") {
      idat.append(bytes, data, len);
    } else if (type == "IEND") {
      ended = true;
    }
    at += 12 + len;
  }
  if (channels == 0) return absl::InvalidArgumentError("PNG without IHDR");
  const size_t stride = static_cast<size_t>(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  const int rc = uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size());
  if (rc != Z_OK || raw_len != raw.size()) {
    return absl::InvalidArgumentError(absl::StrCat("PNG image data does not inflate to ", raw.size(),
                                                   " bytes (zlib code ", rc, ", got ", raw_len, ")"));
  }
  absl::StatusOr<std::vector<uint8_t>> pixels = Unfilter(raw, img.width, img.height, channels);
  if (!pixels.ok()) return pixels.status();
  CompositeOverWhite(*pixels, channels, &img);
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
