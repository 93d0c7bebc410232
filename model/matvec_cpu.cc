// Matrix-vector Linear layer for decode (matvec_cpu.h).
#include "model/matvec_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "accounting/flop_counter.h"
#include "model/bf16.h"

namespace model {
namespace {

inline float WeightValue(float w) { return w; }
inline float WeightValue(uint16_t w) { return Bf16ToFloat(w); }

// Rows of M inputs against one weight row; M known at compile time so the accumulators stay in
// registers. W: float, or uint16_t for bf16 weights.
template <int M, typename W>
void RowBlock(float* out, const float* inp, const W* weight, const float* bias, int64_t C, int64_t OC,
              int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    const W* w = weight + o * C;
    float acc[M];
    for (int m = 0; m < M; ++m) {
      const float* x = inp + m * C;
      float s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < C; ++i) s += WeightValue(w[i]) * x[i];
      acc[m] = s;
    }
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (int m = 0; m < M; ++m) out[m * OC + o] = acc[m] + b;
  }
}

template <int M, typename W>
void Matvec(float* out, const float* inp, const W* weight, const float* bias, int64_t C, int64_t OC) {
  constexpr int64_t kBlock = 64;  // output rows per task
  const int64_t blocks = (OC + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * kBlock;
    RowBlock<M, W>(out, inp, weight, bias, C, OC, o0, std::min(OC, o0 + kBlock));
  }
}

// Matvec<M> for M = 1 .. kMatvecMaxRows, at index M - 1.
template <typename W>
using MatvecFn = void (*)(float*, const float*, const W*, const float*, int64_t, int64_t);
template <typename W>
constexpr MatvecFn<W> kMatvecByRows[] = {Matvec<1, W>, Matvec<2, W>, Matvec<3, W>, Matvec<4, W>,
                                         Matvec<5, W>, Matvec<6, W>, Matvec<7, W>, Matvec<8, W>};
static_assert(std::size(kMatvecByRows<float>) == kMatvecMaxRows, "one Matvec<M> per allowed row count");

template <typename W>
void MatvecForward(float* out, const float* inp, const W* weight, const float* bias, int64_t M, int64_t C,
                   int64_t OC, std::string_view tag) {
  accounting::CountMatmul(M, C, OC, tag);
  if (M < 1 || M > kMatvecMaxRows) {
    std::fprintf(stderr, "matvec_forward: M=%lld rows; allowed 1 to %lld\n", static_cast<long long>(M),
                 static_cast<long long>(kMatvecMaxRows));
    std::abort();
  }
  kMatvecByRows<W>[M - 1](out, inp, weight, bias, C, OC);
}

}  // namespace

void matvec_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t M,
                    int64_t C, int64_t OC, std::string_view tag) {
  MatvecForward(out, inp, weight, bias, M, C, OC, tag);
}

void matvec_forward_bf16(float* out, const float* inp, const uint16_t* weight, const float* bias, int64_t M,
                         int64_t C, int64_t OC, std::string_view tag) {
  MatvecForward(out, inp, weight, bias, M, C, OC, tag);
}

}  // namespace model
