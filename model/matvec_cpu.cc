// Matrix-vector Linear layer for decode (matvec_cpu.h).
#include "model/matvec_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "accounting/flop_counter.h"

namespace model {
namespace {

// Rows of M inputs against one weight row; M known at compile time so the accumulators stay in
// registers.
template <int M>
void RowBlock(float* out, const float* inp, const float* weight, const float* bias, int64_t C, int64_t OC,
              int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    const float* w = weight + o * C;
    float acc[M];
    for (int m = 0; m < M; ++m) {
      const float* x = inp + m * C;
      float s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < C; ++i) s += w[i] * x[i];
      acc[m] = s;
    }
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (int m = 0; m < M; ++m) out[m * OC + o] = acc[m] + b;
  }
}

template <int M>
void Matvec(float* out, const float* inp, const float* weight, const float* bias, int64_t C, int64_t OC) {
  constexpr int64_t kBlock = 64;  // output rows per task
  const int64_t blocks = (OC + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * kBlock;
    RowBlock<M>(out, inp, weight, bias, C, OC, o0, std::min(OC, o0 + kBlock));
  }
}

}  // namespace

void matvec_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t M,
                    int64_t C, int64_t OC, std::string_view tag) {
  accounting::CountMatmul(M, C, OC, tag);
  switch (M) {
    case 1:
      return Matvec<1>(out, inp, weight, bias, C, OC);
    case 2:
      return Matvec<2>(out, inp, weight, bias, C, OC);
    case 3:
      return Matvec<3>(out, inp, weight, bias, C, OC);
    case 4:
      return Matvec<4>(out, inp, weight, bias, C, OC);
    case 5:
      return Matvec<5>(out, inp, weight, bias, C, OC);
    case 6:
      return Matvec<6>(out, inp, weight, bias, C, OC);
    case 7:
      return Matvec<7>(out, inp, weight, bias, C, OC);
    case 8:
      return Matvec<8>(out, inp, weight, bias, C, OC);
    default:
      std::fprintf(stderr, "matvec_forward: M=%lld rows; allowed 1 to %lld\n", static_cast<long long>(M),
                   static_cast<long long>(kMatvecMaxRows));
      std::abort();
  }
}

}  // namespace model
