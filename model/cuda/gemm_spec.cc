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

GemmCall LinearForward(void* out, const void* inp, const void* weight, const void* bias,
                       const void* residual, void* gelu_aux, int64_t R, int64_t C, int64_t OC,
                       StorageType type, bool tf32) {
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

GemmCall LinearBackwardInput(void* dinp, const void* dout, const void* weight,
                             const void* dgelu_aux, int64_t R, int64_t C, int64_t OC,
                             StorageType type, bool tf32) {
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

GemmCall LinearBackwardWeight(float* dweight, const void* dout, const void* inp, int64_t R,
                              int64_t C, int64_t OC, StorageType type, bool tf32) {
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

GemmCall AttentionScores(void* d, const void* x, const void* y, int64_t N, int64_t T,
                         int64_t hs, float alpha, StorageType type, bool tf32) {
  // d^T (T x T): element (j, i) = sum_e y[j][e] x[i][e]: A = y (stored hs x T) transposed,
  // B = x (stored hs x T).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.trans_a = true;
  s.trans_b = false;
  s.m = T;
  s.n = T;
  s.k = hs;
  s.lda = hs;
  s.ldb = hs;
  s.ldc = T;
  s.batch = N;
  s.stride_a = T * hs;
  s.stride_b = T * hs;
  s.stride_c = T * T;
  s.alpha = alpha;
  call.ptrs.a = y;
  call.ptrs.b = x;
  call.ptrs.c = d;
  call.ptrs.d = d;
  return call;
}

GemmCall AttentionProduct(void* d, const void* p, const void* y, int64_t N, int64_t T,
                          int64_t hs, float alpha, StorageType type, bool tf32) {
  // d^T (hs x T): element (e, i) = sum_j y[j][e] p[i][j]: A = y (stored hs x T),
  // B = p (stored T x T, column i holds row i of p).
  GemmCall call;
  GemmSpec& s = call.spec;
  s = Base(type, tf32);
  s.trans_a = false;
  s.trans_b = false;
  s.m = hs;
  s.n = T;
  s.k = T;
  s.lda = hs;
  s.ldb = T;
  s.ldc = hs;
  s.batch = N;
  s.stride_a = T * hs;
  s.stride_b = T * T;
  s.stride_c = T * hs;
  s.alpha = alpha;
  call.ptrs.a = y;
  call.ptrs.b = p;
  call.ptrs.c = d;
  call.ptrs.d = d;
  return call;
}

GemmCall AttentionProductT(void* d, const void* p, const void* y, int64_t N, int64_t T,
                           int64_t hs, float alpha, StorageType type, bool tf32) {
  // d^T (hs x T): element (e, i) = sum_j y[j][e] p[j][i]: as AttentionProduct with B transposed.
  GemmCall call = AttentionProduct(d, p, y, N, T, hs, alpha, type, tf32);
  call.spec.trans_b = true;
  return call;
}

}  // namespace cuda
}  // namespace model
