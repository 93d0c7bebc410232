// Row-major fp32 GEMM through oneDNN's matmul primitive, one primitive per call shape, created
// on first use and cached for the life of the process:
//   C (M, N) = alpha * op(A) (M, K) @ op(B) (K, N) [+ bias (N) broadcast over rows] + beta * C
// or a strided batch of such products in one primitive (OneDnnGemmShape::batch).
// alpha != 1 becomes an output scale, beta != 0 a sum post-op, the bias the primitive's bias
// argument (so a Linear layer's bias costs no separate pass over the output). GeLU is not fused
// as a post-op: the backward needs the pre-GeLU activation, so the MLP's up-projection must
// write it anyway and a fused GeLU would save no pass.
//
// Threads: called from one thread, the primitive runs on the OpenMP pool (Debian's oneDNN uses
// the OpenMP runtime); called inside an OpenMP parallel region, it runs on the calling thread.
// The cache is thread-safe, and every thread passes its own scratchpad (scratchpad mode user),
// so threads may run primitives concurrently. A shape oneDNN rejects is a programming error:
// the process stops with oneDNN's message.
#ifndef MODEL_ONEDNN_GEMM_H_
#define MODEL_ONEDNN_GEMM_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace model {

struct OneDnnGemmShape {
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1, beta = 0;
  bool bias = false;
  // A batch of (batch[0] x batch[1]) such products in one primitive (attention's per-(batch, head)
  // products): product (i, j) reads A at i * a_stride[0] + j * a_stride[1] elements, B and C
  // likewise. {1, 1}: one product (the strides are then unused). No bias with a batch.
  int64_t batch[2] = {1, 1};
  int64_t a_stride[2] = {0, 0}, b_stride[2] = {0, 0}, c_stride[2] = {0, 0};
  // A and B in bf16 (C and the bias stay fp32; products accumulate in fp32): OneDnnGemmBf16.
  bool bf16 = false;

  bool batched() const { return batch[0] * batch[1] > 1; }
  bool operator==(const OneDnnGemmShape& o) const;
};

// op(A) (M, K), op(B) (K, N) and C (M, N) stored packed, row-major: lda = trans_a ? M : K,
// ldb = trans_b ? K : N, ldc = N; alpha 1, beta 0, no bias.
OneDnnGemmShape PackedGemmShape(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K);

void OneDnnSgemm(const OneDnnGemmShape& s, const float* A, const float* B, const float* bias, float* C);

// The same with A and B in bf16 (s.bf16 must be set): the raw 16-bit patterns (model/bf16.h).
void OneDnnGemmBf16(const OneDnnGemmShape& s, const uint16_t* A, const uint16_t* B, const float* bias, float* C);

// oneDNN's BLAS-like dnnl_sgemm on row-major operands: C = alpha * op(A) op(B) + beta * C, run
// as the column-major Cᵀ = Bᵀ·Aᵀ (its JIT gemm kernels, not the matmul primitive's brgemm). No
// bias argument. A failure is a programming error: the process stops with oneDNN's status.
void OneDnnBlasSgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                     int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// The implementation oneDNN chose for this shape, as its verbose mode names it
// ("brg:avx512_core", "gemm:jit", "ref:any"); creates and caches the primitive if needed.
std::string OneDnnImplName(const OneDnnGemmShape& s);

// Whether oneDNN runs bf16 matmuls on this machine: OK with the implementation it picks for a
// Linear layer's shape ("brg:avx512_core_amx_bf16", "brg:avx512_core_bf16", "gemm:jit" when it
// emulates bf16 without bf16 units, e.g. under ONEDNN_MAX_CPU_ISA=AVX512_CORE); FailedPrecondition
// naming the reason when it cannot create one (a CPU without AVX-512, or the ISA capped below it).
absl::StatusOr<std::string> OneDnnBf16Implementation();

// True for an implementation that computes bf16 without bf16 units (oneDNN's "gemm:jit" or
// "ref:any" for a bf16 matmul): correct, but slower than fp32.
bool IsEmulatedBf16(const std::string& impl);

// Primitives created so far (each a distinct shape); for tests of the cache.
int64_t OneDnnCachedPrimitives();

}  // namespace model

#endif  // MODEL_ONEDNN_GEMM_H_
