// Causal self-attention forward / backward: permutes and the fused causal softmax as kernels,
// the products as cuBLASLt GEMMs, then the launchers.
#include <algorithm>
#include <cmath>

#include "accounting/flop_counter.h"
#include "model/cuda/attention_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/gemm_spec.h"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 256;

// ----------------------------------------------------------------------------------------------
// kernels

// Where element idx of a (B, NH, T, hs) tensor sits in a (B, T, width) row-major buffer whose
// head h starts at column h*hs: row (b, t), column h*hs + e.
__device__ __forceinline__ int64_t RowMajorOffset(int64_t idx, int64_t NH, int64_t T, int64_t hs,
                                                  int64_t width) {
  const int64_t e = idx % hs, t = (idx / hs) % T, h = (idx / (hs * T)) % NH, b = idx / (hs * T * NH);
  return (b * T + t) * width + h * hs + e;
}

// Where element e of head h at (b, t) sits in a (B, NH, T, hs) tensor.
__device__ __forceinline__ int64_t HeadMajorOffset(int64_t b, int64_t h, int64_t t, int64_t e, int64_t NH,
                                                   int64_t T, int64_t hs) {
  return ((b * NH + h) * T + t) * hs + e;
}

// q, k, v: (B, NH, T, hs) <- inp (B, T, QKV) = q (NH heads) | k (NKV) | v (NKV): query head h
// reads K/V head h / (NH / NKV), so each K/V head is copied to every query head of its group
// (NKV = NH: inp is (B, T, 3, NH, hs), each head copied once).
template <typename S>
__global__ void permute_kernel(S* q, S* k, S* v, const S* inp, int64_t B, int64_t T, int64_t NH, int64_t hs,
                               int64_t NKV) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * NH * T * hs) return;
  const int64_t C = NH * hs, KVW = NKV * hs;
  const int64_t e = idx % hs, t = (idx / hs) % T, h = (idx / (hs * T)) % NH, b = idx / (hs * T * NH);
  const int64_t row = (b * T + t) * (C + 2 * KVW);
  q[idx] = inp[row + h * hs + e];
  const int64_t kv = row + C + (h / (NH / NKV)) * hs + e;
  k[idx] = inp[kv];
  v[idx] = inp[kv + KVW];
}

// dinp (B, T, 3, NH, hs) <- dq, dk, dv (B, NH, T, hs); every element of dinp written once.
template <typename S>
__global__ void permute_backward_kernel(S* dinp, const S* dq, const S* dk, const S* dv, int64_t B, int64_t T,
                                        int64_t NH, int64_t hs) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * NH * T * hs) return;
  const int64_t C = NH * hs;
  const int64_t dst = RowMajorOffset(idx, NH, T, hs, 3 * C);
  dinp[dst] = dq[idx];
  dinp[dst + C] = dk[idx];
  dinp[dst + 2 * C] = dv[idx];
}

// Grouped-query attention: dinp (B, T, QKV) <- dq, dk, dv (B, NH, T, hs), one thread per element
// of dinp (each written once): dq copied; a K/V head's dk and dv are the sums over its group's
// query heads, in head order, in fp32, rounded once.
template <typename S>
__global__ void permute_backward_gqa_kernel(S* dinp, const S* dq, const S* dk, const S* dv, int64_t B,
                                            int64_t T, int64_t NH, int64_t hs, int64_t NKV) {
  const int64_t C = NH * hs, KVW = NKV * hs, QKV = C + 2 * KVW, group = NH / NKV;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * T * QKV) return;
  const int64_t col = idx % QKV, b = idx / QKV / T, t = (idx / QKV) % T;
  if (col < C) {
    dinp[idx] = dq[HeadMajorOffset(b, col / hs, t, col % hs, NH, T, hs)];
    return;
  }
  const bool is_k = col < C + KVW;
  const S* src = is_k ? dk : dv;
  const int64_t c = is_k ? col - C : col - C - KVW, kv = c / hs, e = c % hs;
  float sum = 0.0f;
  for (int64_t g = 0; g < group; ++g) {
    sum += ToFloat(src[HeadMajorOffset(b, kv * group + g, t, e, NH, T, hs)]);
  }
  dinp[idx] = FromFloat<S>(sum);
}

// out (B, T, NH, hs) <- vaccum (B, NH, T, hs).
template <typename S>
__global__ void unpermute_kernel(S* out, const S* vaccum, int64_t B, int64_t T, int64_t NH, int64_t hs) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * NH * T * hs) return;
  out[RowMajorOffset(idx, NH, T, hs, NH * hs)] = vaccum[idx];
}

// dvaccum (B, NH, T, hs) <- dout (B, T, NH, hs).
template <typename S>
__global__ void unpermute_backward_kernel(S* dvaccum, const S* dout, int64_t B, int64_t T, int64_t NH,
                                          int64_t hs) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * NH * T * hs) return;
  dvaccum[idx] = dout[RowMajorOffset(idx, NH, T, hs, NH * hs)];
}

// The row of att (or datt) this thread's warp owns, row = (n, t): t is its query position.
struct AttRow {
  int64_t row, t;
  int lane;
};

__device__ __forceinline__ AttRow WarpAttRow(int64_t T) {
  const int64_t row = WarpRow();
  return AttRow{row, row % T, static_cast<int>(threadIdx.x % kWarpSize)};
}

// In place on att (rows, T), row = (n, t): the scaled scores of columns 0..t become their
// softmax, columns t+1 .. the end of t's query block become 0. One warp per row.
template <typename S>
__global__ void softmax_forward_kernel(S* att, int64_t rows, int64_t T, int64_t block) {
  const AttRow r = WarpAttRow(T);
  if (r.row >= rows) return;
  S* x = att + r.row * T;
  MaxSum acc{kNegMax, 0.0f};
  for (int64_t j = r.lane; j <= r.t; j += kWarpSize) OnlineAdd(acc, ToFloat(x[j]));
  const MaxSum total = WarpMaxSum(acc);
  const float inv = 1.0f / total.s;
  const int64_t limit = AttentionRowLimit(r.t, T, block);
  for (int64_t j = r.lane; j < limit; j += kWarpSize) {
    x[j] = FromFloat<S>(j <= r.t ? expf(ToFloat(x[j]) - total.m) * inv : 0.0f);
  }
}

// In place on datt (rows, T): datt = att * (datt - sum_j att*datt) for columns 0..t, 0 above
// up to the end of t's query block. One warp per row.
template <typename S>
__global__ void softmax_backward_kernel(S* datt, const S* att, int64_t rows, int64_t T, int64_t block) {
  const AttRow r = WarpAttRow(T);
  if (r.row >= rows) return;
  S* d = datt + r.row * T;
  const S* a = att + r.row * T;
  float dot = 0.0f;
  for (int64_t j = r.lane; j <= r.t; j += kWarpSize) dot += ToFloat(a[j]) * ToFloat(d[j]);
  dot = WarpSum(dot);
  const int64_t limit = AttentionRowLimit(r.t, T, block);
  for (int64_t j = r.lane; j < limit; j += kWarpSize) {
    d[j] = FromFloat<S>(j <= r.t ? ToFloat(a[j]) * (ToFloat(d[j]) - dot) : 0.0f);
  }
}

// softmax_forward_kernel with 16-byte accesses: each lane takes whole vectors of kVec<S>
// columns (T and the block are multiples of kVec<S>, rows 16-byte aligned).
template <typename S>
__global__ void softmax_forward_vec_kernel(S* att, int64_t rows, int64_t T, int64_t block) {
  constexpr int V = kVec<S>;
  const AttRow r = WarpAttRow(T);
  if (r.row >= rows) return;
  S* x = att + r.row * T;
  MaxSum acc{kNegMax, 0.0f};
  for (int64_t c = r.lane; c * V <= r.t; c += kWarpSize) {
    const Vec<S> v = LoadVec(x + c * V);
    for (int e = 0; e < V; ++e) {
      if (c * V + e <= r.t) OnlineAdd(acc, ToFloat(v.e[e]));
    }
  }
  const MaxSum total = WarpMaxSum(acc);
  const float inv = 1.0f / total.s;
  const int64_t limit = AttentionRowLimit(r.t, T, block);
  for (int64_t c = r.lane; c * V < limit; c += kWarpSize) {
    Vec<S> v = LoadVec(x + c * V);
    for (int e = 0; e < V; ++e) {
      const int64_t j = c * V + e;
      v.e[e] = FromFloat<S>(j <= r.t ? expf(ToFloat(v.e[e]) - total.m) * inv : 0.0f);
    }
    StoreVec(x + c * V, v);
  }
}

// softmax_backward_kernel with 16-byte accesses (same conditions as the forward one).
template <typename S>
__global__ void softmax_backward_vec_kernel(S* datt, const S* att, int64_t rows, int64_t T, int64_t block) {
  constexpr int V = kVec<S>;
  const AttRow r = WarpAttRow(T);
  if (r.row >= rows) return;
  S* d = datt + r.row * T;
  const S* a = att + r.row * T;
  float dot = 0.0f;
  for (int64_t c = r.lane; c * V <= r.t; c += kWarpSize) {
    const Vec<S> av = LoadVec(a + c * V), dv = LoadVec(d + c * V);
    for (int e = 0; e < V; ++e) {
      if (c * V + e <= r.t) dot += ToFloat(av.e[e]) * ToFloat(dv.e[e]);
    }
  }
  dot = WarpSum(dot);
  const int64_t limit = AttentionRowLimit(r.t, T, block);
  for (int64_t c = r.lane; c * V < limit; c += kWarpSize) {
    const Vec<S> av = LoadVec(a + c * V);
    Vec<S> dv = LoadVec(d + c * V);
    for (int e = 0; e < V; ++e) {
      const int64_t j = c * V + e;
      dv.e[e] = FromFloat<S>(j <= r.t ? ToFloat(av.e[e]) * (ToFloat(dv.e[e]) - dot) : 0.0f);
    }
    StoreVec(d + c * V, dv);
  }
}

// Rows of att / datt allow 16-byte accesses, and blocks end on whole vectors.
template <typename S>
bool SoftmaxVectorized(const S* att, int64_t T, int64_t block) {
  return VecAligned<S>(att, T) && block % kVec<S> == 0;
}

template <typename Kernel, typename... Args>
void LaunchPerElement(const char* name, Kernel kernel, int64_t n, Args... args) {
  const LaunchDims d = ElementwiseLaunch(n, kBlock);
  MODEL_CUDA_LAUNCH(kernel, GridOf(d, name), BlockOf(d))(args...);
}

// The causal products run one batched GEMM per block of Tb rows of att. Query block
// [r0, r0 + rows) sees the keys up to its end (keys = r0 + rows); key block [j0, j0 + cols) is
// seen by the queries from j0 on (queries = T - j0: att is zero, or never computed, for earlier
// ones). make(start, len, span) returns a block's GEMM; each is run and its FLOPs counted under
// `tag` (the spec is D^T: the row-major product is (batch * n) x k @ k x m).
enum class Blocks { kQuery, kKey };

template <typename MakeGemm>
void RunPerBlock(GemmRunner* gemm, Blocks blocks, int64_t T, int64_t Tb, const char* tag, MakeGemm make) {
  for (int64_t b0 = 0; b0 < T; b0 += Tb) {
    const int64_t len = std::min(Tb, T - b0);
    const GemmCall g = make(b0, len, blocks == Blocks::kQuery ? b0 + len : T - b0);
    accounting::CountMatmul(g.spec.batch * g.spec.n, g.spec.k, g.spec.m, tag);
    gemm->Run(g.spec, g.ptrs);
  }
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void attention_forward(S* out, S* qkvr, S* att, S* vaccum, const S* inp, int64_t B, int64_t T, int64_t C,
                       int64_t NH, int64_t NKV, GemmRunner* gemm, bool tf32, int64_t block) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && NH >= 1 && C % NH == 0 && NKV >= 1 && NH % NKV == 0,
                     "attention_forward");
  const int64_t hs = C / NH, N = B * NH, n = B * T * C, Tb = AttentionBlock(T, block);
  const StorageType st = StorageOf<S>();
  S* q = qkvr;
  S* k = qkvr + n;
  S* v = qkvr + 2 * n;
  if (inp != nullptr) {  // null: qkvr holds them already (the attention recompute)
    LaunchPerElement("attention_forward", permute_kernel<S>, n, q, k, v, inp, B, T, NH, hs, NKV);
    CUDA_CHECK_LAST("attention_forward (permute)");
  }
  // Scores of each query block against the keys up to its end: att = q k^T / sqrt(hs).
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  RunPerBlock(gemm, Blocks::kQuery, T, Tb, "attention_qk", [&](int64_t r0, int64_t rows, int64_t keys) {
    return BatchedScores(att + r0 * T, q + r0 * hs, k, N, rows, keys, hs, T, T * T, T * hs, scale, st, tf32);
  });
  // The causal softmax in place.
  const LaunchDims rows_dims = WarpPerRowLaunch(N * T, kBlock);
  if (SoftmaxVectorized(att, T, Tb)) {
    MODEL_CUDA_LAUNCH(softmax_forward_vec_kernel<S>, GridOf(rows_dims, "attention_forward"),
                      BlockOf(rows_dims))
    (att, N * T, T, Tb);
  } else {
    MODEL_CUDA_LAUNCH(softmax_forward_kernel<S>, GridOf(rows_dims, "attention_forward"), BlockOf(rows_dims))
    (att, N * T, T, Tb);
  }
  CUDA_CHECK_LAST("attention_forward (softmax)");
  // vaccum = att v per query block, then back to (B, T, C).
  RunPerBlock(gemm, Blocks::kQuery, T, Tb, "attention_av", [&](int64_t r0, int64_t rows, int64_t keys) {
    return BatchedProduct(vaccum + r0 * hs, att + r0 * T, v, N, rows, keys, hs, T, T * T, T * hs, 1.0f, st,
                          tf32);
  });
  LaunchPerElement("attention_forward", unpermute_kernel<S>, n, out, static_cast<const S*>(vaccum), B, T, NH,
                   hs);
  CUDA_CHECK_LAST("attention_forward (unpermute)");
}

template <typename S>
void attention_backward(S* dinp, S* dqkvr, S* datt, S* dvaccum, const S* dout, const S* qkvr, const S* att,
                        int64_t B, int64_t T, int64_t C, int64_t NH, int64_t NKV, GemmRunner* gemm, bool tf32,
                        int64_t block) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && NH >= 1 && C % NH == 0 && NKV >= 1 && NH % NKV == 0,
                     "attention_backward");
  const int64_t hs = C / NH, N = B * NH, n = B * T * C, Tb = AttentionBlock(T, block);
  const StorageType st = StorageOf<S>();
  const S* q = qkvr;
  const S* k = qkvr + n;
  const S* v = qkvr + 2 * n;
  S* dq = dqkvr;
  S* dk = dqkvr + n;
  S* dv = dqkvr + 2 * n;
  LaunchPerElement("attention_backward", unpermute_backward_kernel<S>, n, dvaccum, dout, B, T, NH, hs);
  CUDA_CHECK_LAST("attention_backward (unpermute)");
  // datt = dvaccum v^T, per query block.
  RunPerBlock(gemm, Blocks::kQuery, T, Tb, "attention_datt", [&](int64_t r0, int64_t rows, int64_t keys) {
    return BatchedScores(datt + r0 * T, dvaccum + r0 * hs, v, N, rows, keys, hs, T, T * T, T * hs, 1.0f, st,
                         tf32);
  });
  // dv = att^T dvaccum, per key block.
  RunPerBlock(gemm, Blocks::kKey, T, Tb, "attention_dv", [&](int64_t j0, int64_t cols, int64_t queries) {
    return BatchedProductT(dv + j0 * hs, att + j0 * T + j0, dvaccum + j0 * hs, N, cols, queries, hs, T, T * T,
                           T * hs, 1.0f, st, tf32);
  });
  // Softmax backward in place: datt becomes the gradient of the scaled scores.
  const LaunchDims rows_dims = WarpPerRowLaunch(N * T, kBlock);
  if (SoftmaxVectorized(static_cast<const S*>(datt), T, Tb) && VecAligned<S>(att, T)) {
    MODEL_CUDA_LAUNCH(softmax_backward_vec_kernel<S>, GridOf(rows_dims, "attention_backward"),
                      BlockOf(rows_dims))
    (datt, att, N * T, T, Tb);
  } else {
    MODEL_CUDA_LAUNCH(softmax_backward_kernel<S>, GridOf(rows_dims, "attention_backward"), BlockOf(rows_dims))
    (datt, att, N * T, T, Tb);
  }
  CUDA_CHECK_LAST("attention_backward (softmax)");
  // dq = scale * dscores k per query block; dk = scale * dscores^T q per key block.
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  RunPerBlock(gemm, Blocks::kQuery, T, Tb, "attention_dq", [&](int64_t r0, int64_t rows, int64_t keys) {
    return BatchedProduct(dq + r0 * hs, datt + r0 * T, k, N, rows, keys, hs, T, T * T, T * hs, scale, st,
                          tf32);
  });
  RunPerBlock(gemm, Blocks::kKey, T, Tb, "attention_dk", [&](int64_t j0, int64_t cols, int64_t queries) {
    return BatchedProductT(dk + j0 * hs, datt + j0 * T + j0, q + j0 * hs, N, cols, queries, hs, T, T * T,
                           T * hs, scale, st, tf32);
  });
  if (NKV == NH) {
    LaunchPerElement("attention_backward", permute_backward_kernel<S>, n, dinp, static_cast<const S*>(dq),
                     static_cast<const S*>(dk), static_cast<const S*>(dv), B, T, NH, hs);
  } else {
    LaunchPerElement("attention_backward", permute_backward_gqa_kernel<S>, B * T * (C + 2 * NKV * hs), dinp,
                     static_cast<const S*>(dq), static_cast<const S*>(dk), static_cast<const S*>(dv), B, T,
                     NH, hs, NKV);
  }
  CUDA_CHECK_LAST("attention_backward (permute)");
}

template void attention_forward<float>(float*, float*, float*, float*, const float*, int64_t, int64_t,
                                       int64_t, int64_t, int64_t, GemmRunner*, bool, int64_t);
template void attention_forward<Bf16>(Bf16*, Bf16*, Bf16*, Bf16*, const Bf16*, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, GemmRunner*, bool, int64_t);
template void attention_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                        const float*, int64_t, int64_t, int64_t, int64_t, int64_t,
                                        GemmRunner*, bool, int64_t);
template void attention_backward<Bf16>(Bf16*, Bf16*, Bf16*, Bf16*, const Bf16*, const Bf16*, const Bf16*,
                                       int64_t, int64_t, int64_t, int64_t, int64_t, GemmRunner*, bool,
                                       int64_t);

}  // namespace cuda
}  // namespace model
