// Int8 weight-only GEMV: kernels, then the launcher (int8_gemv_cuda.h; the arithmetic is
// int8_gemv_math.h's).
#include <cstring>

#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/int8_gemv_cuda.h"
#include "model/cuda/int8_gemv_math.h"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 256;  // 8 warps: 8 output channels a block

// ----------------------------------------------------------------------------------------------
// kernels

// kBytes / 4 packed words of weights (kBytes = 16: one 128-bit load; 4: one 32-bit load) from a
// row position aligned to kBytes.
template <int kBytes>
__device__ __forceinline__ void LoadWords(const int8_t* p, uint32_t* words) {
#if defined(__CUDA_ARCH__)
  if constexpr (kBytes == 16) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    words[0] = v.x, words[1] = v.y, words[2] = v.z, words[3] = v.w;
  } else {
    words[0] = *reinterpret_cast<const uint32_t*>(p);
  }
#else
  std::memcpy(words, p, kBytes);
#endif
}

// Four activations as fp32 from a position aligned to four elements (one 16-byte load of fp32,
// one 8-byte load of bf16).
__device__ __forceinline__ void LoadActivations4(const float* p, float* x) {
#if defined(__CUDA_ARCH__)
  const float4 v = *reinterpret_cast<const float4*>(p);
  x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
#else
  std::memcpy(x, p, 4 * sizeof(float));
#endif
}

__device__ __forceinline__ void LoadActivations4(const Bf16* p, float* x) {
  Bf16 h[4];
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint2*>(h) = *reinterpret_cast<const uint2*>(p);
#else
  std::memcpy(h, p, sizeof(h));
#endif
  for (int k = 0; k < 4; ++k) x[k] = ToFloat(h[k]);
}

// One warp per output channel o: each lane takes kBytes consecutive weights of row o at a time
// (the warp's loads cover 32 * kBytes contiguous bytes), widens them to fp32 and adds their
// products with each input row into that row's accumulator; a warp sum per row, then lane 0
// writes the scaled output. The M rows share every weight load.
template <typename S, int kBytes>
__global__ void int8_gemv_kernel(S* __restrict__ out, const S* __restrict__ inp, const int8_t* __restrict__ q,
                                 const float* __restrict__ scales, const S* __restrict__ bias, int M, int64_t C,
                                 int64_t OC) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t o = WarpRow();
  if (o >= OC) return;  // the whole warp leaves together
  const int8_t* row = q + o * C;
  float acc[kInt8GemvMaxRows];
  for (int m = 0; m < kInt8GemvMaxRows; ++m) acc[m] = 0.0f;
  for (int64_t c = static_cast<int64_t>(lane) * kBytes; c < C; c += static_cast<int64_t>(kWarpSize) * kBytes) {
    if constexpr (kBytes == 1) {
      const float w = static_cast<float>(row[c]);
      for (int m = 0; m < kInt8GemvMaxRows; ++m) {
        if (m < M) acc[m] = fmaf(w, ToFloat(inp[m * C + c]), acc[m]);
      }
    } else {
      uint32_t words[kBytes / 4];
      LoadWords<kBytes>(row + c, words);
      for (int m = 0; m < kInt8GemvMaxRows; ++m) {
        if (m >= M) continue;
        for (int w = 0; w < kBytes / 4; ++w) {
          float x[4];
          LoadActivations4(inp + m * C + c + 4 * w, x);
          acc[m] = Int8Dot4(words[w], x[0], x[1], x[2], x[3], acc[m]);
        }
      }
    }
  }
  const float scale = scales[o];
  const float b = bias == nullptr ? 0.0f : ToFloat(bias[o]);
  for (int m = 0; m < kInt8GemvMaxRows; ++m) {
    if (m >= M) continue;  // M is the same for every lane: the warp sums together
    const float sum = WarpSum(acc[m]);
    if (lane == 0) out[m * OC + o] = FromFloat<S>(Int8GemvOutput(sum, scale, b));
  }
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launcher

template <typename S>
std::string int8_gemv_forward(S* out, const S* inp, const int8_t* q, const float* scales, const S* bias,
                              int64_t M, int64_t C, int64_t OC) {
  const std::string error = Int8GemvArgsError(out, inp, q, scales, M, C, OC);
  if (!error.empty()) return "int8_gemv_forward: " + error;
  // Four activations a load: fp32 needs 16-byte, bf16 8-byte alignment of every row start.
  const bool inp_aligned = reinterpret_cast<uintptr_t>(inp) % (4 * sizeof(S)) == 0;
  using Kernel = void (*)(S*, const S*, const int8_t*, const float*, const S*, int, int64_t, int64_t);
  Kernel kernel = int8_gemv_kernel<S, 1>;
  switch (Int8GemvLoadBytes(q, C, inp_aligned)) {
    case 16:
      kernel = int8_gemv_kernel<S, 16>;
      break;
    case 4:
      kernel = int8_gemv_kernel<S, 4>;
      break;
    default:
      break;
  }
  const LaunchDims d = WarpPerRowLaunch(OC, kBlock);
  MODEL_CUDA_LAUNCH(kernel, GridOf(d, "int8_gemv_forward"), BlockOf(d))
  (out, inp, q, scales, bias, static_cast<int>(M), C, OC);
  CUDA_CHECK_LAST("int8_gemv_forward");
  return "";
}

template std::string int8_gemv_forward<float>(float*, const float*, const int8_t*, const float*, const float*,
                                              int64_t, int64_t, int64_t);
template std::string int8_gemv_forward<Bf16>(Bf16*, const Bf16*, const int8_t*, const float*, const Bf16*, int64_t,
                                             int64_t, int64_t);

}  // namespace cuda
}  // namespace model
