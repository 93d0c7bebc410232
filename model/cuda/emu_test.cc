// The kernel emulator itself: thread coordinates, block barriers, warp shuffles and the block
// reductions of launch.cuh, and its two diagnostics (deadlock, shuffle from an exited lane).
#include <cuda_runtime.h>  // the emulator's (//cuda_emu include/)

#include <vector>

#include "cuda_emu/emu.h"
#include "gtest/gtest.h"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

__global__ void coordinates_kernel(int* out) {
  const int idx = (blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y) +
                  threadIdx.y * blockDim.x + threadIdx.x;
  out[idx] = idx;
}

TEST(Emu, EveryThreadOfEveryBlockRunsOnceWithItsCoordinates) {
  std::vector<int> out(3 * 2 * 8 * 4, -1);
  MODEL_CUDA_LAUNCH(coordinates_kernel, dim3(3, 2), dim3(8, 4))(out.data());
  for (int i = 0; i < static_cast<int>(out.size()); ++i) EXPECT_EQ(out[i], i);
}

// Reverses each block's values through shared memory: needs the barrier between write and read.
__global__ void reverse_kernel(float* data) {
  __shared__ float tile[128];
  const int i = threadIdx.x;
  tile[i] = data[blockIdx.x * blockDim.x + i];
  __syncthreads();
  data[blockIdx.x * blockDim.x + i] = tile[blockDim.x - 1 - i];
}

TEST(Emu, SyncThreadsOrdersSharedMemory) {
  std::vector<float> v(2 * 128);
  for (int i = 0; i < 256; ++i) v[i] = static_cast<float>(i);
  MODEL_CUDA_LAUNCH(reverse_kernel, dim3(2), dim3(128))(v.data());
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 128; ++i) EXPECT_EQ(v[b * 128 + i], b * 128 + 127 - i);
  }
}

__global__ void reductions_kernel(const float* in, float* sums, float* maxes, float* block_sums) {
  __shared__ float scratch[32];
  const float x = in[threadIdx.x];
  sums[threadIdx.x] = WarpSum(x);
  maxes[threadIdx.x] = WarpMax(x);
  block_sums[threadIdx.x] = BlockSum(x, scratch);
}

TEST(Emu, WarpAndBlockReductionsGiveEveryThreadTheResult) {
  const int n = 96;  // three warps
  std::vector<float> in(n), sums(n), maxes(n), block(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 37) % 101);
  MODEL_CUDA_LAUNCH(reductions_kernel, dim3(1), dim3(n))(in.data(), sums.data(), maxes.data(), block.data());
  float total = 0;
  for (float x : in) total += x;
  for (int w = 0; w < 3; ++w) {
    float s = 0, m = -1;
    for (int l = 0; l < 32; ++l) {
      s += in[w * 32 + l];
      m = std::max(m, in[w * 32 + l]);
    }
    for (int l = 0; l < 32; ++l) {
      EXPECT_EQ(sums[w * 32 + l], s);
      EXPECT_EQ(maxes[w * 32 + l], m);
      EXPECT_EQ(block[w * 32 + l], total);
    }
  }
}

__global__ void shuffle_down_kernel(int* out) {
  out[threadIdx.x] = __shfl_down_sync(kFullMask, static_cast<int>(threadIdx.x) * 10, 3);
}

TEST(Emu, ShuffleDownKeepsOwnValuePastTheEnd) {
  std::vector<int> out(32);
  MODEL_CUDA_LAUNCH(shuffle_down_kernel, dim3(1), dim3(32))(out.data());
  for (int l = 0; l < 32; ++l) EXPECT_EQ(out[l], l + 3 < 32 ? (l + 3) * 10 : l * 10);
}

__global__ void early_exit_kernel(int* out) {
  // Threads that leave early no longer count at the block barrier (as on the GPU).
  if (threadIdx.x >= 40) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

TEST(Emu, ExitedThreadsDropOutOfBarriers) {
  std::vector<int> out(64, 0);
  MODEL_CUDA_LAUNCH(early_exit_kernel, dim3(1), dim3(64))(out.data());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], i < 40 ? 1 : 0);
}

__global__ void deadlock_kernel() {
  if (threadIdx.x < 16) {
    __syncwarp();
  } else {
    __syncthreads();
  }
}

__global__ void exited_lane_kernel(float* out) {
  if (threadIdx.x == 0) return;
  out[threadIdx.x] = __shfl_sync(kFullMask, 1.0f, 0);
}

TEST(EmuDeathTest, ReportsDeadlockAndShuffleFromExitedLane) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(MODEL_CUDA_LAUNCH(deadlock_kernel, dim3(1), dim3(32))(), "deadlock");
  std::vector<float> out(32);
  EXPECT_DEATH(MODEL_CUDA_LAUNCH(exited_lane_kernel, dim3(1), dim3(32))(out.data()), "exited");
}

__global__ void late_sync_kernel() {
  if (blockIdx.x > 0) __syncthreads();
}

TEST(EmuDeathTest, ReportsBarriersThatOnlySomeBlocksReach) {
  // Block 0 never synchronises, so the other blocks run on the fast path, where a barrier is
  // a divergence the emulator reports instead of mis-running.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(MODEL_CUDA_LAUNCH(late_sync_kernel, dim3(2), dim3(32))(), "block 0");
}

__global__ void many_blocks_kernel(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] += static_cast<int>(blockIdx.x) + 1;
}

TEST(Emu, BarrierFreeKernelsRunEveryThreadOnceOnTheFastPath) {
  std::vector<int> out(50 * 64, 0);
  const int64_t before = ::emu::LaunchCount();
  MODEL_CUDA_LAUNCH(many_blocks_kernel, dim3(50), dim3(64))(out.data());
  EXPECT_EQ(::emu::LaunchCount(), before + 1);
  for (int i = 0; i < 50 * 64; ++i) EXPECT_EQ(out[i], i / 64 + 1);
}

TEST(EmuDeathTest, RejectsOversizedBlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(2048);
  EXPECT_DEATH(MODEL_CUDA_LAUNCH(coordinates_kernel, dim3(1), dim3(2048))(out.data()), "1024");
}

}  // namespace
}  // namespace cuda
}  // namespace model
