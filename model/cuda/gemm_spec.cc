// Row-major products mapped onto column-major GemmSpecs (see gemm_spec.h for the convention).
#include "model/cuda/gemm_spec.h"

namespace model {
namespace cuda {
namespace {

// The column-major product every mapping starts from: D (m x n, ldc) = alpha op(A) (m x k, lda)
// op(B) (k x n, ldb), with C = D (read only when beta is set). `product` gives the shape fields
// (trans_a .. ldc, and for the batched ones batch .. alpha); Call adds the types and pointers.
GemmCall Call(const GemmSpec& product, const void* a, const void* b, void* d, StorageType type, bool tf32) {
  GemmCall call{product, GemmPointers{a, b, /*c=*/d, d}};
  GemmSpec& s = call.spec;
  s.ab_type = type;
  s.cd_type = type;
  s.tf32 = tf32 && type == StorageType::kFp32;
  return call;
}

}  // namespace

GemmCall LinearForward(void* out, const void* inp, const void* weight, const void* bias, const void* residual,
                       void* gelu_aux, int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32) {
  // out^T (OC x R) = W (OC x C; stored as column-major C x OC) @ inp^T (C x R).
  GemmCall call = Call({/*trans_a=*/true, /*trans_b=*/false, /*m=*/OC, /*n=*/R, /*k=*/C, /*lda=*/C, /*ldb=*/C,
                        /*ldc=*/OC},
                       weight, inp, out, type, tf32);
  GemmSpec& s = call.spec;
  s.bias = bias != nullptr;
  if (residual != nullptr) s.beta = 1.0f;
  if (gelu_aux != nullptr) {
    s.epilogue = GemmEpilogue::kGeluAux;
    s.aux_ld = OC;
  }
  if (residual != nullptr) call.ptrs.c = residual;
  call.ptrs.bias = bias;
  call.ptrs.aux = gelu_aux;
  return call;
}

GemmCall LinearBackwardInput(void* dinp, const void* dout, const void* weight, const void* dgelu_aux,
                             int64_t R, int64_t C, int64_t OC, StorageType type, bool tf32) {
  // dinp^T (C x R) = W^T (C x OC; W stored as column-major C x OC) @ dout^T (OC x R).
  GemmCall call =
      Call({/*trans_a=*/false, /*trans_b=*/false, /*m=*/C, /*n=*/R, /*k=*/OC, /*lda=*/C, /*ldb=*/OC,
            /*ldc=*/C},
           weight, dout, dinp, type, tf32);
  GemmSpec& s = call.spec;
  if (dgelu_aux != nullptr) {
    s.epilogue = GemmEpilogue::kDGelu;
    s.aux_ld = C;
  }
  call.ptrs.aux = const_cast<void*>(dgelu_aux);
  return call;
}

GemmCall LinearBackwardWeight(float* dweight, const void* dout, const void* inp, int64_t R, int64_t C,
                              int64_t OC, StorageType type, bool tf32) {
  // dW^T (C x OC) += inp^T (C x R) @ dout (R x OC; dout stored as column-major OC x R).
  GemmCall call =
      Call({/*trans_a=*/false, /*trans_b=*/true, /*m=*/C, /*n=*/OC, /*k=*/R, /*lda=*/C, /*ldb=*/OC,
            /*ldc=*/C},
           inp, dout, dweight, type, tf32);
  call.spec.cd_type = StorageType::kFp32;
  call.spec.beta = 1.0f;
  return call;
}

GemmCall BatchedScores(void* d, const void* x, const void* y, int64_t N, int64_t rows, int64_t cols,
                       int64_t hs, int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha,
                       StorageType type, bool tf32) {
  // d^T (cols x rows, ld): element (j, i) = sum_e y[j][e] x[i][e]: A = y (stored hs x cols)
  // transposed, B = x (stored hs x rows).
  return Call(
      {/*trans_a=*/true, /*trans_b=*/false, /*m=*/cols, /*n=*/rows, /*k=*/hs, /*lda=*/hs, /*ldb=*/hs,
       /*ldc=*/ld, /*batch=*/N, /*stride_a=*/stride_xy, /*stride_b=*/stride_xy, /*stride_c=*/stride_p, alpha},
      y, x, d, type, tf32);
}

GemmCall BatchedProduct(void* d, const void* p, const void* y, int64_t N, int64_t rows, int64_t k, int64_t hs,
                        int64_t ld, int64_t stride_p, int64_t stride_xy, float alpha, StorageType type,
                        bool tf32) {
  // d^T (hs x rows): element (e, i) = sum_j y[j][e] p[i][j]: A = y (stored hs x k),
  // B = p (stored k x rows, ld: column i holds row i of p).
  return Call(
      {/*trans_a=*/false, /*trans_b=*/false, /*m=*/hs, /*n=*/rows, /*k=*/k, /*lda=*/hs, /*ldb=*/ld,
       /*ldc=*/hs, /*batch=*/N, /*stride_a=*/stride_xy, /*stride_b=*/stride_p, /*stride_c=*/stride_xy, alpha},
      y, p, d, type, tf32);
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
