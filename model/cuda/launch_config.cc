// Grid and block arithmetic for the CUDA model's kernels.
#include "model/cuda/launch_config.h"

#include <algorithm>

namespace model {
namespace cuda {

LaunchDims ElementwiseLaunch(int64_t n, int block) {
  LaunchDims d;
  d.block_x = block;
  d.grid_x = std::max<int64_t>(1, CeilDiv(n, block));
  return d;
}

LaunchDims GridStrideLaunch(int64_t n, int block, int64_t max_blocks) {
  LaunchDims d;
  d.block_x = block;
  d.grid_x = std::max<int64_t>(1, std::min(CeilDiv(n, block), max_blocks));
  return d;
}

LaunchDims WarpPerRowLaunch(int64_t rows, int block) {
  LaunchDims d;
  d.block_x = block;
  d.grid_x = std::max<int64_t>(1, CeilDiv(rows, block / 32));
  return d;
}

LaunchDims BlockPerRowLaunch(int64_t rows, int block) {
  LaunchDims d;
  d.block_x = block;
  d.grid_x = std::max<int64_t>(1, rows);
  return d;
}

LaunchDims ColumnReduceLaunch(int64_t rows, int64_t cols) {
  LaunchDims d;
  d.block_x = kColumnBlockX;
  d.block_y = kColumnBlockY;
  d.grid_x = std::max<int64_t>(1, CeilDiv(cols, kColumnBlockX));
  const int64_t by_rows = std::max<int64_t>(1, rows / (kColumnBlockY * kMinRowsPerThread));
  const int64_t by_target = std::max<int64_t>(1, CeilDiv(kTargetBlocks, d.grid_x));
  d.grid_y = std::min({by_rows, by_target, kMaxGridY});
  return d;
}

LaunchDims OrderedColumnReduceLaunch(int64_t cols) {
  LaunchDims d;
  d.block_x = kColumnBlockX;
  d.block_y = kOrderedColumnBlockY;
  d.grid_x = std::max<int64_t>(1, CeilDiv(cols, kColumnBlockX));
  return d;
}

int64_t AttentionBlock(int64_t T, int64_t requested) {
  const int64_t b = requested > 0 ? requested : kAttentionBlock;
  return b < T ? b : T;
}

double AttentionWorkFraction(int64_t T, int64_t block) {
  double issued = 0;
  for (int64_t r0 = 0; r0 < T; r0 += block) {
    const int64_t rows = std::min(block, T - r0);
    issued += static_cast<double>(rows) * static_cast<double>(r0 + rows);
  }
  return issued / (static_cast<double>(T) * static_cast<double>(T));
}

std::string CheckLaunch(const LaunchDims& d) {
  if (d.grid_x < 1 || d.grid_x > kMaxGridX) {
    return "grid.x = " + std::to_string(d.grid_x) + " is outside [1, 2^31 - 1]";
  }
  if (d.grid_y < 1 || d.grid_y > kMaxGridY) {
    return "grid.y = " + std::to_string(d.grid_y) + " is outside [1, 65535]";
  }
  if (d.block_x < 1 || d.block_y < 1 || d.threads_per_block() > kMaxBlockThreads) {
    return "block (" + std::to_string(d.block_x) + ", " + std::to_string(d.block_y) +
           ") is empty or has more than 1024 threads";
  }
  return "";
}

}  // namespace cuda
}  // namespace model
