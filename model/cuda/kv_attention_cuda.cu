// KV-cache write and attention: kernels, then launchers (kv_attention_cuda.h).
#include <cmath>

#include "accounting/flop_counter.h"
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/kv_attention_cuda.h"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 128;

// ----------------------------------------------------------------------------------------------
// kernels

// One thread per K/V channel (NKV * hs of them) of each new token: its k and v values into the
// cache.
template <typename S>
__global__ void kv_cache_write_kernel(S* k_cache, S* v_cache, const S* qkv, int64_t T, int64_t C, int64_t NH,
                                      int64_t NKV, int64_t maxT, int64_t pos, int64_t N) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  const int64_t hs = C / NH, KVW = NKV * hs;
  const int64_t bt = idx / KVW, c = idx % KVW, b = bt / T, t = bt % T;
  const int64_t kv = c / hs, i = c % hs;
  const int64_t dst = ((b * NKV + kv) * maxT + pos + t) * hs + i;
  const S* row = qkv + bt * (C + 2 * KVW);
  k_cache[dst] = row[C + c];
  v_cache[dst] = row[C + KVW + c];
}

// One block per (b, t, h): scores over keys 0 .. pos + t, exact max / sum, then p.v.
template <typename S>
__global__ void kv_attention_kernel(S* out, float* scores, const S* qkv, const S* k_cache, const S* v_cache,
                                    int64_t T, int64_t C, int64_t NH, int64_t NKV, int64_t maxT, int64_t pos,
                                    float scale) {
  __shared__ float scratch_m[32];
  __shared__ float scratch_s[32];
  const int64_t hs = C / NH;
  const int64_t row = blockIdx.x;  // (b * T + t) * NH + h
  const int64_t h = row % NH, bt = row / NH, b = bt / T, t = bt % T;
  const int64_t n = pos + t + 1;
  const S* q = qkv + bt * (C + 2 * NKV * hs) + h * hs;
  const int64_t kv = h / (NH / NKV);  // the query head's K/V head
  const S* kc = k_cache + (b * NKV + kv) * maxT * hs;
  const S* vc = v_cache + (b * NKV + kv) * maxT * hs;
  float* p = scores + row * maxT;
  MaxSum acc{kNegMax, 0.0f};
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const S* k = kc + j * hs;
    float dot = 0.0f;
    for (int64_t i = 0; i < hs; ++i) dot += ToFloat(q[i]) * ToFloat(k[i]);
    dot *= scale;
    p[j] = dot;
    OnlineAdd(acc, dot);
  }
  const MaxSum total = BlockMaxSum(acc, scratch_m, scratch_s);  // also a barrier: p is complete
  const float inv = 1.0f / total.s;
  S* o = out + bt * C + h * hs;
  for (int64_t i = threadIdx.x; i < hs; i += blockDim.x) {
    float y = 0.0f;
    for (int64_t j = 0; j < n; ++j) y += expf(p[j] - total.m) * ToFloat(vc[j * hs + i]);
    o[i] = FromFloat<S>(y * inv);
  }
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// launchers

template <typename S>
void kv_cache_write(S* k_cache, S* v_cache, const S* qkv, int64_t B, int64_t T, int64_t C, int64_t NH,
                    int64_t maxT, int64_t pos, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && NH >= 1 && C % NH == 0 && NH % NKV == 0, "kv_cache_write");
  MODEL_CUDA_REQUIRE(pos >= 0 && pos + T <= maxT, "kv_cache_write");
  const int64_t N = B * T * NKV * (C / NH);
  const LaunchDims d = ElementwiseLaunch(N);
  MODEL_CUDA_LAUNCH(kv_cache_write_kernel<S>, GridOf(d, "kv_cache_write"), BlockOf(d))
  (k_cache, v_cache, qkv, T, C, NH, NKV, maxT, pos, N);
  CUDA_CHECK_LAST("kv_cache_write");
}

template <typename S>
void kv_attention_forward(S* out, float* scores, const S* qkv, const S* k_cache, const S* v_cache, int64_t B,
                          int64_t T, int64_t C, int64_t NH, int64_t maxT, int64_t pos, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && NH >= 1 && C % NH == 0 && NH % NKV == 0, "kv_attention_forward");
  MODEL_CUDA_REQUIRE(pos >= 0 && pos + T <= maxT, "kv_attention_forward");
  const int64_t hs = C / NH;
  const int64_t keys = T * pos + T * (T + 1) / 2;
  accounting::CountFlops(static_cast<double>(B * NH * 2 * hs * keys), "attention_qk");
  accounting::CountFlops(static_cast<double>(B * NH * 2 * hs * keys), "attention_av");
  const LaunchDims d = BlockPerRowLaunch(B * T * NH, kBlock);
  MODEL_CUDA_LAUNCH(kv_attention_kernel<S>, GridOf(d, "kv_attention_forward"), BlockOf(d))
  (out, scores, qkv, k_cache, v_cache, T, C, NH, NKV, maxT, pos, 1.0f / sqrtf(static_cast<float>(hs)));
  CUDA_CHECK_LAST("kv_attention_forward");
}

template void kv_cache_write<float>(float*, float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t,
                                    int64_t, int64_t);
template void kv_cache_write<Bf16>(Bf16*, Bf16*, const Bf16*, int64_t, int64_t, int64_t, int64_t, int64_t,
                                   int64_t, int64_t);
template void kv_attention_forward<float>(float*, float*, const float*, const float*, const float*, int64_t,
                                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
template void kv_attention_forward<Bf16>(Bf16*, float*, const Bf16*, const Bf16*, const Bf16*, int64_t,
                                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
