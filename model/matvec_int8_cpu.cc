// int8 weight-only matrix-vector Linear layer for decode (matvec_int8_cpu.h).
#include "model/matvec_int8_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "accounting/flop_counter.h"
#include "model/matvec_cpu.h"

namespace model {
namespace {

// 8 fp32 lanes (one AVX2 register).
typedef float F8 __attribute__((vector_size(32)));
constexpr int kLanes = 8;

// 8 int8 weights widened to fp32 (exact for every int8). GCC 12 lowers the generic
// __builtin_convertvector from 8 int8 to 8 floats to a byte-at-a-time scalar sequence (about 30
// instructions), so AVX2 gets its two instructions by name: vpmovsxbd from an 8-byte load, and
// vcvtdq2ps. Elsewhere a plain loop (correct, not tuned).
inline F8 LoadWeights(const int8_t* p) {
#if defined(__AVX2__)
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
  F8 out;
  std::memcpy(&out, &f, sizeof(out));
  return out;
#else
  F8 out;
  for (int j = 0; j < kLanes; ++j) out[j] = static_cast<float>(p[j]);
  return out;
#endif
}

inline F8 LoadInputs(const float* p) {
  F8 x;
  std::memcpy(&x, p, sizeof(x));
  return x;
}

inline float Sum(F8 v) {
  float s = 0;
  for (int j = 0; j < kLanes; ++j) s += v[j];
  return s;
}

// Independent accumulators per input row: enough FMA chains in flight to hide the FMA latency
// (4 for one row, 2 for two; from three rows on the rows themselves are the chains), and no more
// than AVX2's 16 registers hold with the weights.
constexpr int UnrollFor(int M) { return M == 1 ? 4 : M == 2 ? 2 : 1; }

// The dot products of one weight row with M input rows: sums[m] = sum_k x[m, k] q[k].
template <int M>
void RowDots(float* sums, const float* inp, const int8_t* w, int64_t C) {
  constexpr int U = UnrollFor(M);
  // Fully unrolled loops over m and u (GCC unroll), so that every accumulator is a register: a
  // rolled loop keeps acc on the stack, a store and a load around every FMA.
  F8 acc[M][U] = {};
  int64_t i = 0;
  for (; i + U * kLanes <= C; i += U * kLanes) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const F8 wf = LoadWeights(w + i + u * kLanes);
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) acc[m][u] += wf * LoadInputs(inp + m * C + i + u * kLanes);
    }
  }
  for (; i + kLanes <= C; i += kLanes) {  // the vectors past the unrolled ones
    const F8 wf = LoadWeights(w + i);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) acc[m][0] += wf * LoadInputs(inp + m * C + i);
  }
  for (int m = 0; m < M; ++m) {
    F8 v = acc[m][0];
    for (int u = 1; u < U; ++u) v += acc[m][u];
    float s = Sum(v);
    for (int64_t k = i; k < C; ++k) s += static_cast<float>(w[k]) * inp[m * C + k];  // C % 8 tail
    sums[m] = s;
  }
}

template <int M>
void RowBlock(float* out, const float* inp, const int8_t* weight, const float* scales, const float* bias,
              int64_t C, int64_t OC, int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    float sums[M];
    RowDots<M>(sums, inp, weight + o * C, C);
    const float b = bias != nullptr ? bias[o] : 0.0f;
    for (int m = 0; m < M; ++m) out[m * OC + o] = sums[m] * scales[o] + b;
  }
}

template <int M>
void Matvec(float* out, const float* inp, const int8_t* weight, const float* scales, const float* bias,
            int64_t C, int64_t OC) {
  constexpr int64_t kBlock = 64;  // output rows per task, as matvec_forward
  const int64_t blocks = (OC + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * kBlock;
    RowBlock<M>(out, inp, weight, scales, bias, C, OC, o0, std::min(OC, o0 + kBlock));
  }
}

using MatvecFn = void (*)(float*, const float*, const int8_t*, const float*, const float*, int64_t, int64_t);
constexpr MatvecFn kMatvecByRows[] = {Matvec<1>, Matvec<2>, Matvec<3>, Matvec<4>,
                                      Matvec<5>, Matvec<6>, Matvec<7>, Matvec<8>};
static_assert(std::size(kMatvecByRows) == kMatvecMaxRows, "one Matvec<M> per allowed row count");

}  // namespace

void matvec_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t M, int64_t C, int64_t OC, std::string_view tag) {
  accounting::CountMatmul(M, C, OC, tag);
  if (M < 1 || M > kMatvecMaxRows) {
    std::fprintf(stderr, "matvec_forward_int8: M=%lld rows; allowed 1 to %lld\n", static_cast<long long>(M),
                 static_cast<long long>(kMatvecMaxRows));
    std::abort();
  }
  kMatvecByRows[M - 1](out, inp, weight, scales, bias, C, OC);
}

}  // namespace model
