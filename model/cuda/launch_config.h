// Launch-configuration arithmetic of the CUDA model's kernels, as pure host functions: the
// launchers (*_cuda.cu) take their grids and blocks from here, and launch_config_test.cc checks
// them without a GPU (every element or row covered exactly once, limits respected).
#ifndef MODEL_CUDA_LAUNCH_CONFIG_H_
#define MODEL_CUDA_LAUNCH_CONFIG_H_

#include <cstdint>
#include <string>

namespace model {
namespace cuda {

struct LaunchDims {
  int64_t grid_x = 1;
  int64_t grid_y = 1;
  int block_x = 1;
  int block_y = 1;
  int64_t blocks() const { return grid_x * grid_y; }
  int threads_per_block() const { return block_x * block_y; }
};

// CUDA's limits: grid.x < 2^31, grid.y <= 65535, at most 1024 threads per block.
inline constexpr int64_t kMaxGridX = 2147483647;
inline constexpr int64_t kMaxGridY = 65535;
inline constexpr int kMaxBlockThreads = 1024;
// Enough resident blocks to fill an H200 (132 SMs) a few times over; a grid-stride or
// split-reduction kernel does not need more.
inline constexpr int64_t kTargetBlocks = 132 * 8;

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One thread per element: grid.x = ceil(n / block).
LaunchDims ElementwiseLaunch(int64_t n, int block = 256);
// A grid-stride loop over n elements: at most max_blocks blocks.
LaunchDims GridStrideLaunch(int64_t n, int block = 256, int64_t max_blocks = kTargetBlocks);
// One warp per row: block/32 rows per block.
LaunchDims WarpPerRowLaunch(int64_t rows, int block = 256);
// One block per row.
LaunchDims BlockPerRowLaunch(int64_t rows, int block);
// Column sums over a (rows, cols) matrix: blocks of (32 columns) x (8 row lanes); grid.y splits
// the rows so that about kTargetBlocks blocks run, each thread summing at least
// kMinRowsPerThread rows (partial sums meet with atomicAdd).
inline constexpr int kColumnBlockX = 32;
inline constexpr int kColumnBlockY = 8;
inline constexpr int64_t kMinRowsPerThread = 16;
LaunchDims ColumnReduceLaunch(int64_t rows, int64_t cols);
// Column sums in a fixed order (no atomics: the same bits on every run and GPU): one block per
// 32 columns, kOrderedColumnBlockY row lanes each summing its rows in order, the lanes' partial
// sums then added in lane order. grid.y = 1.
inline constexpr int kOrderedColumnBlockY = 32;
LaunchDims OrderedColumnReduceLaunch(int64_t cols);

// Block-causal attention: query rows go in blocks of this many, each multiplied only with the
// keys up to its block's end (the rest of the T x T matrix is never computed, read or written).
inline constexpr int64_t kAttentionBlock = 256;
// The query block for sequence length T: `requested` if positive, else kAttentionBlock, at
// most T.
int64_t AttentionBlock(int64_t T, int64_t requested = 0);
// The keys a row t sees, rounded up to its block's end: min(T, (t / block + 1) * block).
// constexpr, so kernels can call it too.
constexpr int64_t AttentionRowLimit(int64_t t, int64_t T, int64_t block) {
  const int64_t end = (t / block + 1) * block;
  return end < T ? end : T;
}
// Fraction of the full T x T products that block-causal attention issues.
double AttentionWorkFraction(int64_t T, int64_t block);

// "" when dims are launchable (grid and block sizes positive and within CUDA's limits),
// else a message naming the bad value.
std::string CheckLaunch(const LaunchDims& dims);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_LAUNCH_CONFIG_H_
