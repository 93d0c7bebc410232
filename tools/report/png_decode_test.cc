// DecodePng on small images written by a reference encoder (Python's zlib and struct): every
// filter type, RGB and RGBA (composited over white), and refusals with libpng's reason.
#include "tools/report/png_decode.h"

#include <string>

#include "gtest/gtest.h"

namespace report {
namespace {

// 4 x 5 RGB, rows filtered None, Sub, Up, Average, Paeth. Pixel (x, y) is
// ((60x + 17y) % 256, (31x + 90y + 50) % 256, (31x + 90y + 100) % 256).
const std::string kRgbAllFilters(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x04\x00\x00\x00\x05\x08\x02"
    "\x00\x00\x00\xed\xcf\xda\x8c\x00\x00\x00\x32\x49\x44\x41\x54\x78\x9c\x63\x60\x30\x4a\xb1\x09\x6c\xae\x28"
    "\x58\xb4\xa5\xff\x20\xa3\x60\xcf\x3e\x1b\x79\x79\x08\x62\x12\x8c\x8a\x82\x23\x66\xa5\xb3\x69\xea\xb6\xb6"
    "\x10\xc4\x02\x12\x93\x97\x87\x20\x00\x5d\x08\x10\x06\x75\xae\x3a\x4f\x00\x00\x00\x00\x49\x45\x4e\x44\xae"
    "\x42\x60\x82",
    107);

// 3 x 1 RGBA: opaque red, transparent blue, (10, 20, 30) at alpha 128.
const std::string kRgba(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x03\x00\x00\x00\x01\x08\x06"
    "\x00\x00\x00\x1b\xe0\x14\xb4\x00\x00\x00\x11\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\x00\x46\x5c\x22\x72"
    "\x0d\x00\x1c\x12\x03\xba\xf3\xd1\x6f\x14\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
    74);

TEST(DecodePng, EveryFilterType) {
  auto img = DecodePng(kRgbAllFilters);
  ASSERT_TRUE(img.ok()) << img.status();
  ASSERT_EQ(img->width, 4);
  ASSERT_EQ(img->height, 5);
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 4; ++x) {
      const uint32_t want = (uint32_t((60 * x + 17 * y) % 256) << 16) |
                            (uint32_t((31 * x + 90 * y + 50) % 256) << 8) |
                            uint32_t((31 * x + 90 * y + 100) % 256);
      EXPECT_EQ(img->At(x, y), want) << "pixel " << x << "," << y << " (row filter " << y << ")";
    }
  }
}

TEST(DecodePng, AlphaOverWhite) {
  auto img = DecodePng(kRgba);
  ASSERT_TRUE(img.ok()) << img.status();
  EXPECT_EQ(img->At(0, 0), 0xff0000u);
  EXPECT_EQ(img->At(1, 0), 0xffffffu);
  // 10 * 128/255 + 255 * 127/255 = 132.0 (rounded): (132, 137, 142).
  EXPECT_EQ(img->At(2, 0), (132u << 16) | (137u << 8) | 142u);
}

TEST(DecodePng, Refusals) {
  auto gif = DecodePng("GIF89a");
  ASSERT_FALSE(gif.ok());
  EXPECT_NE(gif.status().message().find("not a PNG"), std::string::npos) << gif.status();
  std::string truncated = kRgbAllFilters.substr(0, 60);
  EXPECT_FALSE(DecodePng(truncated).ok());
  EXPECT_FALSE(ReadPng("/nonexistent/shot.png").ok());
}

}  // namespace
}  // namespace report
