// Linear layer forward/backward on the CPU via cpu_gemm (the backend of cpu_gemm_backend.h for float,
// OpenBLAS for double).
#include "model/matmul_cpu.h"

#include <algorithm>
#include <type_traits>

#include "accounting/flop_counter.h"
#include "model/gemm_cpu.h"

namespace model {

template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int64_t B, int64_t T, int64_t C,
                    int64_t OC, std::string_view tag) {
  const int64_t BT = B * T;
  accounting::CountMatmul(BT, C, OC, tag);
  if constexpr (std::is_same_v<F, float>) {
    if (ResolveCpuGemmBackend(/*trans_a=*/false, /*trans_b=*/true, BT, OC, C) == CpuGemmBackend::kOneDnn) {
      // The bias is the primitive's bias argument: added as the output tile is written.
      OneDnnGemmShape s = PackedGemmShape(/*trans_a=*/false, /*trans_b=*/true, BT, OC, C);
      s.bias = bias != nullptr;
      OneDnnSgemm(s, inp, weight, bias, out);
      return;
    }
  }
  F beta = 0;
  if (bias != nullptr) {
    bias_rows(out, bias, BT, OC);  // then accumulate the product into it
    beta = 1;
  }
  cpu_gemm(/*trans_a=*/false, /*trans_b=*/true, BT, OC, C, F(1), inp, C, weight, C, beta, out, OC);
}

template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight, int64_t B,
                     int64_t T, int64_t C, int64_t OC, std::string_view tag, GradWrite write) {
  const int64_t BT = B * T;
  const bool overwrite = write == GradWrite::kOverwrite;
  if (dinp != nullptr) {
    // dinp (BT, C) = dout (BT, OC) @ weight (OC, C)
    accounting::CountMatmul(BT, OC, C, tag);
    cpu_gemm(false, false, BT, C, OC, F(1), dout, OC, weight, C, F(0), dinp, C);
  }
  // dweight (OC, C) += dout^T (OC, BT) @ inp (BT, C), or = when overwriting
  accounting::CountMatmul(OC, BT, C, tag);
  cpu_gemm(true, false, OC, C, BT, F(1), dout, OC, inp, C, overwrite ? F(0) : F(1), dweight, C);
  if (dbias != nullptr) bias_backward(dbias, dout, BT, OC, write);
}

template <typename F>
void bias_rows(F* out, const F* bias, int64_t rows, int64_t OC) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    F* row = out + r * OC;
#pragma omp simd
    for (int64_t o = 0; o < OC; ++o) row[o] = bias[o];
  }
}

template <typename F>
void bias_backward(F* dbias, const F* dout, int64_t BT, int64_t OC, GradWrite write) {
  const bool overwrite = write == GradWrite::kOverwrite;
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (OC + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * kBlock, n = std::min(kBlock, OC - o0);
    F acc[kBlock] = {};
    for (int64_t r = 0; r < BT; ++r) {
      const F* row = dout + r * OC + o0;
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) acc[j] += row[j];
    }
    for (int64_t j = 0; j < n; ++j) dbias[o0 + j] = overwrite ? acc[j] : dbias[o0 + j] + acc[j];
  }
}

template void bias_rows<float>(float*, const float*, int64_t, int64_t);
template void bias_rows<double>(double*, const double*, int64_t, int64_t);
template void bias_backward<float>(float*, const float*, int64_t, int64_t, GradWrite);
template void bias_backward<double>(double*, const double*, int64_t, int64_t, GradWrite);
template void matmul_forward<float>(float*, const float*, const float*, const float*, int64_t, int64_t,
                                    int64_t, int64_t, std::string_view);
template void matmul_forward<double>(double*, const double*, const double*, const double*, int64_t, int64_t,
                                     int64_t, int64_t, std::string_view);
template void matmul_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                     int64_t, int64_t, int64_t, int64_t, std::string_view, GradWrite);
template void matmul_backward<double>(double*, double*, double*, const double*, const double*, const double*,
                                      int64_t, int64_t, int64_t, int64_t, std::string_view, GradWrite);

}  // namespace model
