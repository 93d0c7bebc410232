// Row-major products mapped onto column-major GemmSpecs (see gemm_spec.h for the convention).
#include "model/cuda/gemm_spec.h"

namespace model {
namespace cuda {
namespace {

GemmSpec Base(StorageType type, bool tf32) {
  GemmSpec s;
  s.ab_type = type;
  s.cd_type = type;
  s.tf32 = tf32 && type == StorageType::kFp32;
  return s;
}

}  // namespace

GemmCall LinearForward(void* out, const void* inp, const void* weight, const void* bias, const void* residual,
                       void* gelu_aux, int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32) {
  // out^T (OC x R) = W (OC x C; stored as column-major C x OC) @ inp^T (C x R).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.trans_a = true;
  s.trans_b = false;
  s.m = OC;
  s.n = R;
  s.k = C;
  s.lda = C;
  s.ldb = C;
  s.ldc = OC;
  s.bias = bias != nullptr;
  if (residual != nullptr) s.beta = 1.0f;
  if (gelu_aux != nullptr) {
    s.epilogue = GemmEpilogue::kGeluAux;
    s.aux_ld = OC;
  }
  call.ptrs.a = weight;
  call.ptrs.b = inp;
  call.ptrs.c = residual != nullptr ? residual : out;
  call.ptrs.d = out;
  call.ptrs.bias = bias;
  call.ptrs.aux = gelu_aux;
  return call;
}

GemmCall LinearBackwardInput(void* dinp, const void* dout, const void* weight, const void* dgelu_aux,
                             int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32) {
  // dinp^T (C x R) = W^T (C x OC; W stored as column-major C x OC) @ dout^T (OC x R).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.m = C;
  s.n = R;
  s.k = OC;
  s.lda = C;
  s.ldb = OC;
  s.ldc = C;
  if (dgelu_aux != nullptr) {
    s.epilogue = GemmEpilogue::kDGelu;
    s.aux_ld = C;
  }
  call.ptrs.a = weight;
  call.ptrs.b = dout;
  call.ptrs.c = dinp;
  call.ptrs.d = dinp;
  call.ptrs.aux = const_cast<void*>(dgelu_aux);
  return call;
}

GemmCall LinearBackwardWeight(float* dweight, const void* dout, const void* inp, int64_t R, int64_t C,
                              int64_t OC, StorageType type, bool tf32) {
  // dW^T (C x OC) += inp^T (C x R) @ dout (R x OC; dout stored as column-major OC x R).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.cd_type = StorageType::kFp32;
  s.trans_a = false;
  s.trans_b = true;
  s.m = C;
  s.n = OC;
  s.k = R;
  s.lda = C;
  s.ldb = OC;
  s.ldc = C;
  s.beta = 1.0f;
  call.ptrs.a = inp;
  call.ptrs.b = dout;
  call.ptrs.c = dweight;
  call.ptrs.d = dweight;
  return call;
}

GemmCall BatchedScores(void* d, const void* x, const void* y, int64_t N, int64_t rows, int64_t cols,
                       int64_t hs, int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha,
                       StorageType type, bool tf32) {
  // d^T (cols x rows, ld): element (j, i) = sum_e y[j][e] x[i][e]: A = y (stored hs x cols)
  // transposed, B = x (stored hs x rows).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.trans_a = true;
  s.trans_b = false;
  s.m = cols;
  s.n = rows;
  s.k = hs;
  s.lda = hs;
  s.ldb = hs;
  s.ldc = ld;
  s.batch = N;
  s.stride_a = stride_xy;
  s.stride_b = stride_xy;
  s.stride_c = stride_p;
  s.alpha = alpha;
  call.ptrs.a = y;
  call.ptrs.b = x;
  call.ptrs.c = d;
  call.ptrs.d = d;
  return call;
}

GemmCall BatchedProduct(void* d, const void* p, const void* y, int64_t N, int64_t rows, int64_t k, int64_t hs,
                        int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha, StorageType type,
                        bool tf32) {
  // d^T (hs x rows): element (e, i) = sum_j y[j][e] p[i][j]: A = y (stored hs x k),
  // B = p (stored k x rows, ld: column i holds row i of p).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.trans_a = false;
  s.trans_b = false;
  s.m = hs;
  s.n = rows;
  s.k = k;
  s.lda = hs;
  s.ldb = ld;
  s.ldc = hs;
  s.batch = N;
  s.stride_a = stride_xy;
  s.stride_b = stride_p;
  s.stride_c = stride_xy;
  s.alpha = alpha;
  call.ptrs.a = y;
  call.ptrs.b = p;
  call.ptrs.c = d;
  call.ptrs.d = d;
  return call;
}

GemmCall BatchedProductT(void* d, const void* p, const void* y, int64_t N, int64_t cols, int64_t k,
                         int64_t hs, int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha,
                         StorageType type, bool tf32) {
  // d^T (hs x cols): element (e, i) = sum_j y[j][e] p[j][i]: B = p (stored cols x k, ld)
  // transposed.
  GemmCall call = BatchedProduct(d, p, y, N, cols, k, hs, ld, stride_p, stride_xy, alpha, type, tf32);
  call.spec.trans_b = true;
  return call;
}

GemmCall AttentionScores(void* d, const void* x, const void* y, int64_t N, int64_t T, int64_t hs, float alpha,
                         StorageType type, bool tf32) {
  return BatchedScores(d, x, y, N, T, T, hs, T, T * T, T * hs, alpha, type, tf32);
}

GemmCall AttentionProduct(void* d, const void* p, const void* y, int64_t N, int64_t T, int64_t hs,
                          float alpha, StorageType type, bool tf32) {
  return BatchedProduct(d, p, y, N, T, T, hs, T, T * T, T * hs, alpha, type, tf32);
}

GemmCall AttentionProductT(void* d, const void* p, const void* y, int64_t N, int64_t T, int64_t hs,
                           float alpha, StorageType type, bool tf32) {
  return BatchedProductT(d, p, y, N, T, T, hs, T, T * T, T * hs, alpha, type, tf32);
}

}  // namespace cuda
}  // namespace model
