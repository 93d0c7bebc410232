// PNG decoding for tests that read screenshots (headless Chromium's), through Debian's libpng
// (libpng-dev): any PNG it reads (grey, RGB, palette, with alpha, 16-bit, interlaced) becomes
// 8-bit RGB.
#ifndef TOOLS_REPORT_PNG_DECODE_H_
#define TOOLS_REPORT_PNG_DECODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace report {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width x height x 3, rows top to bottom

  uint32_t At(int x, int y) const {  // 0xRRGGBB
    const size_t i = (static_cast<size_t>(y) * width + x) * 3;
    return (uint32_t{rgb[i]} << 16) | (uint32_t{rgb[i + 1]} << 8) | rgb[i + 2];
  }
};

// Alpha, where present, is composited over white.
absl::StatusOr<Image> DecodePng(const std::string& bytes);
absl::StatusOr<Image> ReadPng(const std::string& path);

}  // namespace report

#endif  // TOOLS_REPORT_PNG_DECODE_H_
