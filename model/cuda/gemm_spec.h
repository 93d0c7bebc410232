// The CUDA model's row-major products as GemmSpecs (gemm.h, column-major cuBLAS terms), one
// helper per product, so the index mapping lives in one host-only place that gemm_spec_test.cc
// runs through the reference runner against the CPU ops.
//
// A row-major (r x c) matrix is a column-major (c x r) one with the same leading dimension c,
// so each row-major product Y = X W^T is computed as the column-major Y^T = W X^T.
// Legend: R rows (B*T), C input features, OC output features, N = B*NH attention matrices,
// T sequence, hs head size. Pointers are device pointers of the given storage type, except
// where fp32 is named.
#ifndef MODEL_CUDA_GEMM_SPEC_H_
#define MODEL_CUDA_GEMM_SPEC_H_

#include <cstdint>
#include <type_traits>

#include "model/cuda/bf16.h"
#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

// The GemmSpec storage type of a kernel storage type (float or Bf16).
template <typename S>
constexpr StorageType StorageOf() {
  static_assert(std::is_same<S, float>::value || std::is_same<S, Bf16>::value, "storage is float or Bf16");
  return std::is_same<S, Bf16>::value ? StorageType::kBf16 : StorageType::kFp32;
}

struct GemmCall {
  GemmSpec spec;
  GemmPointers ptrs;
};

// out: (R, OC) = inp (R, C) @ weight (OC, C)^T [+ bias (OC)] [+ residual (R, OC)];
// with gelu_aux (R, OC): out = gelu(x) and gelu_aux = x. bias, residual, gelu_aux may be null;
// residual may equal out.
GemmCall LinearForward(void* out, const void* inp, const void* weight, const void* bias, const void* residual,
                       void* gelu_aux, int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32);

// dinp: (R, C) = dout (R, OC) @ weight (OC, C), OVERWRITTEN; with dgelu_aux (R, C) (the GeLU
// input of the forward pass) dinp is multiplied by gelu'(dgelu_aux) in the epilogue.
GemmCall LinearBackwardInput(void* dinp, const void* dout, const void* weight, const void* dgelu_aux,
                             int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32);

// dweight: fp32 (OC, C) += dout (R, OC)^T @ inp (R, C).
GemmCall LinearBackwardWeight(float* dweight, const void* dout, const void* inp, int64_t R, int64_t C,
                              int64_t OC, StorageType type, bool tf32);

// Batched products of attention blocks. Matrix n of x, y (row-major, hs columns) starts
// n * stride_xy elements after matrix 0, of d / p (row-major, leading dimension ld) n * stride_p.
// d[n]: (rows, cols; ld) = alpha * x[n] (rows, hs) @ y[n] (cols, hs)^T.
GemmCall BatchedScores(void* d, const void* x, const void* y, int64_t N, int64_t rows, int64_t cols,
                       int64_t hs, int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha,
                       StorageType type, bool tf32);
// d[n]: (rows, hs) = alpha * p[n] (rows, k; ld) @ y[n] (k, hs).
GemmCall BatchedProduct(void* d, const void* p, const void* y, int64_t N, int64_t rows, int64_t k, int64_t hs,
                        int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha, StorageType type,
                        bool tf32);
// d[n]: (cols, hs) = alpha * p[n] (k, cols; ld)^T @ y[n] (k, hs).
GemmCall BatchedProductT(void* d, const void* p, const void* y, int64_t N, int64_t cols, int64_t k,
                         int64_t hs, int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha,
                         StorageType type, bool tf32);

// Whole (T, T) attention matrices, N of them, packed:
// For n in [0, N): d[n]: (T, T) = alpha * x[n] (T, hs) @ y[n] (T, hs)^T.
GemmCall AttentionScores(void* d, const void* x, const void* y, int64_t N, int64_t T, int64_t hs, float alpha,
                         StorageType type, bool tf32);
// For n in [0, N): d[n]: (T, hs) = alpha * p[n] (T, T) @ y[n] (T, hs).
GemmCall AttentionProduct(void* d, const void* p, const void* y, int64_t N, int64_t T, int64_t hs,
                          float alpha, StorageType type, bool tf32);
// For n in [0, N): d[n]: (T, hs) = alpha * p[n] (T, T)^T @ y[n] (T, hs).
GemmCall AttentionProductT(void* d, const void* p, const void* y, int64_t N, int64_t T, int64_t hs,
                           float alpha, StorageType type, bool tf32);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_GEMM_SPEC_H_
