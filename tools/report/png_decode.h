// A small PNG decoder for tests that read screenshots: 8-bit greyscale, RGB, RGBA (and grey +
// alpha), not interlaced, every filter type (None, Sub, Up, Average, Paeth), zlib from the
// system. That is what headless Chromium writes; palette and 16-bit images are refused.
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
