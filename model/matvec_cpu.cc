// Matrix-vector Linear layer for decode (matvec_cpu.h).
#include "model/matvec_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

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

// Matvec<M> for M = 1 .. kMatvecMaxRows, at index M - 1.
using MatvecFn = void (*)(float*, const float*, const float*, const float*, int64_t, int64_t);
constexpr MatvecFn kMatvecByRows[] = {Matvec<1>, Matvec<2>, Matvec<3>, Matvec<4>,
                                      Matvec<5>, Matvec<6>, Matvec<7>, Matvec<8>};
static_assert(std::size(kMatvecByRows) == kMatvecMaxRows, "one Matvec<M> per allowed row count");

}  // namespace

void matvec_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t M,
                    int64_t C, int64_t OC, std::string_view tag) {
  accounting::CountMatmul(M, C, OC, tag);
  if (M < 1 || M > kMatvecMaxRows) {
    std::fprintf(stderr, "matvec_forward: M=%lld rows; allowed 1 to %lld\n", static_cast<long long>(M),
                 static_cast<long long>(kMatvecMaxRows));
    std::abort();
  }
  kMatvecByRows[M - 1](out, inp, weight, bias, C, OC);
}

}  // namespace model
