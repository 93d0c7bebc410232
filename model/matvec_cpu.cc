// Matrix-vector Linear layer for decode (matvec_cpu.h): one kernel for fp32, bf16 and int8 weights.
#include "model/matvec_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <vector>

#include <omp.h>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "accounting/flop_counter.h"
#include "model/bf16.h"

namespace model {
namespace {

inline float WeightValue(float w) { return w; }
inline float WeightValue(uint16_t w) { return Bf16ToFloat(w); }
inline float WeightValue(int8_t w) { return static_cast<float>(w); }

// GCC vector extensions, as wide as the machine's vectors (16 lanes under AVX-512, else 8).
#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float VecF __attribute__((vector_size(kLanes * sizeof(float))));
typedef uint32_t VecU __attribute__((vector_size(kLanes * sizeof(uint32_t))));
typedef uint16_t VecH __attribute__((vector_size(kLanes * sizeof(uint16_t))));

inline VecF LoadF(const float* p) {
  VecF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline VecF LoadW(const float* p) { return LoadF(p); }
// kLanes bf16 values widened to fp32 in the register (bf16 is the top half of an fp32).
inline VecF LoadW(const uint16_t* p) {
  VecH h;
  std::memcpy(&h, p, sizeof h);
  const VecU u = __builtin_convertvector(h, VecU) << 16;
  VecF f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// kLanes int8 weights widened to fp32 (exact for every int8): sign-extend and convert, named for
// x86 because GCC 12 lowers the generic __builtin_convertvector from int8 to float to a byte at a
// time (about 30 instructions for 8); elsewhere a plain loop (correct, not tuned).
inline VecF LoadW(const int8_t* p) {
#if defined(__AVX512F__)
  const __m512 f = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif defined(__AVX2__)
  const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#else
  VecF f;
  for (int j = 0; j < kLanes; ++j) f[j] = static_cast<float>(p[j]);
#endif
  VecF out;
  std::memcpy(&out, &f, sizeof out);
  return out;
}
inline float Sum(VecF v) {
  float s = 0;
  for (int i = 0; i < kLanes; ++i) s += v[i];
  return s;
}

// Each weight stream asks for the line kPrefetchBytes ahead of the one it reads, once a line: the
// hardware prefetchers alone kept too few misses in flight. On the Intel Xeon (AMX) VM, 2 threads,
// gpt2 B=1 decode: int8 5.5-5.9 ms a token without, 3.9-4.3 with 2-4 KiB ahead; fp32 19.0 ms
// without, 17.2-17.8 with (the read roof, 31-32 GB/s without and 33-34 with its own prefetch).
constexpr int64_t kPrefetchBytes = 4096;
template <typename W>
inline void PrefetchAhead(const W* p) {
  __builtin_prefetch(reinterpret_cast<const char*>(p) + kPrefetchBytes);
}

// R weight rows (rows[0..R-1]) against M inputs at once: R independent streams of weights in
// flight, each loaded once and used for every input row. One row at a time reads one stream,
// and a core's prefetcher then leaves DRAM bandwidth unused: on a Zen 3 VM, 2 threads, the
// whole gpt2 token's matvecs read 18.6 GB/s one row at a time and 24.9 GB/s four rows at a
// time, a quarter of the rows apart, against a read roof of 33.4 GB/s (8 streams a thread).
// scales: one per output row (int8), or nullptr (fp32, bf16): out = sum * scale + bias.
template <int M, int R, typename W>
void RowGroup(float* out, const float* inp, const W* weight, const float* scales, const float* bias, int64_t C,
              int64_t OC, const int64_t (&rows)[R]) {
  VecF acc[R][M] = {};
  const W* w[R];
  for (int r = 0; r < R; ++r) w[r] = weight + rows[r] * C;
  int64_t i = 0;
  // Fully unrolled (GCC unroll) so that every accumulator is a register: rolled, GCC keeps the
  // arrays on the stack with a store and a load around every FMA (M = 8 ran at 26 GFLOP/s).
  for (; i + kLanes <= C; i += kLanes) {
    VecF x[M];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) x[m] = LoadF(inp + m * C + i);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      if (((i * sizeof(W)) & 63) == 0) PrefetchAhead(w[r] + i);
      const VecF wv = LoadW(w[r] + i);
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) acc[r][m] += wv * x[m];
    }
  }
  for (int r = 0; r < R; ++r) {
    const float b = bias != nullptr ? bias[rows[r]] : 0.0f;
    const float scale = scales != nullptr ? scales[rows[r]] : 1.0f;
    for (int m = 0; m < M; ++m) {
      float s = Sum(acc[r][m]);
      for (int64_t j = i; j < C; ++j) s += WeightValue(w[r][j]) * inp[m * C + j];
      out[m * OC + rows[r]] = s * scale + b;
    }
  }
}

// bf16 weights against one input row, 2 * kLanes columns a step: the weights loaded as kLanes
// 32-bit words, each holding an even column in its low half and the next odd column in its high
// half (little-endian), so the even columns widen to fp32 with one shift and the odd ones with one
// mask, against a zero-extend and a shift for every kLanes weights in RowGroup. xp is the input
// permuted to match (PairInput), one set of accumulators each for the even and the odd columns.
// On the Zen 3 VM, one gpt2 layer's four Linear shapes from the last-level cache (so that the
// arithmetic, not DRAM, is the limit), 2 threads, interleaved: 35-36 GB/s of bf16 weights in
// RowGroup, 52-57 GB/s here (int8 in RowGroup: 39-40; fp32: 57-70).
template <int R>
void RowGroupBf16Pairs(float* out, const float* xp, const float* inp, const uint16_t* weight, const float* bias,
                       int64_t C, const int64_t (&rows)[R]) {
  VecF even[R] = {}, odd[R] = {};
  const uint16_t* w[R];
  for (int r = 0; r < R; ++r) w[r] = weight + rows[r] * C;
  int64_t i = 0;
  for (; i + 2 * kLanes <= C; i += 2 * kLanes) {
    const VecF xe = LoadF(xp + i), xo = LoadF(xp + i + kLanes);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      if (((i * sizeof(uint16_t)) & 63) == 0) PrefetchAhead(w[r] + i);
      VecU u;
      std::memcpy(&u, w[r] + i, sizeof u);
      const VecU lo = u << 16, hi = u & 0xFFFF0000u;
      VecF we, wo;
      std::memcpy(&we, &lo, sizeof we);
      std::memcpy(&wo, &hi, sizeof wo);
      even[r] += we * xe;
      odd[r] += wo * xo;
    }
  }
  for (int r = 0; r < R; ++r) {
    float s = Sum(even[r] + odd[r]);
    for (int64_t j = i; j < C; ++j) s += Bf16ToFloat(w[r][j]) * inp[j];
    out[rows[r]] = s + (bias != nullptr ? bias[rows[r]] : 0.0f);
  }
}

// One input row (C columns) in RowGroupBf16Pairs' order: in each step of 2 * kLanes columns the
// even ones, then the odd ones; a tail of fewer columns stays in place.
void PairInput(const float* inp, int64_t C, float* xp) {
  int64_t i = 0;
  for (; i + 2 * kLanes <= C; i += 2 * kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      xp[i + j] = inp[i + 2 * j];
      xp[i + kLanes + j] = inp[i + 2 * j + 1];
    }
  }
  for (; i < C; ++i) xp[i] = inp[i];
}

// Output rows o0 .. o1-1: groups of R rows a quarter (1/R) of the range apart, then the rest
// one at a time, each group to group(rows), rows an int64_t[R] or int64_t[1].
template <int R, typename Group>
void ForRowGroups(int64_t o0, int64_t o1, const Group& group) {
  const int64_t q = (o1 - o0) / R;
  for (int64_t j = 0; j < q; ++j) {
    int64_t rows[R];
    for (int r = 0; r < R; ++r) rows[r] = o0 + r * q + j;
    group(rows);
  }
  for (int64_t o = o0 + R * q; o < o1; ++o) {
    const int64_t row[1] = {o};
    group(row);
  }
}

// R falls as M grows so that the R * M accumulators stay in registers.
template <int M, typename W>
void RowBlock(float* out, const float* inp, const float* xp, const W* weight, const float* scales,
              const float* bias, int64_t C, int64_t OC, int64_t o0, int64_t o1) {
  constexpr int R = M <= 2 ? 4 : M <= 4 ? 2 : 1;
  ForRowGroups<R>(o0, o1, [&](const auto& rows) {
    constexpr int kRows = static_cast<int>(std::extent_v<std::remove_reference_t<decltype(rows)>>);
    if constexpr (M == 1 && std::is_same_v<W, uint16_t>) {
      RowGroupBf16Pairs<kRows>(out, xp, inp, weight, bias, C, rows);
    } else {
      RowGroup<M, kRows, W>(out, inp, weight, scales, bias, C, OC, rows);
    }
  });
}

// Each thread takes one contiguous share of the output rows, so that its R streams are each a
// quarter of the share long (an int8 gpt2 fc share: 1536 rows of 768 bytes, 288 KiB a stream).
// Blocks of 64 rows as OpenMP tasks, which this replaced, cut every stream after 16 rows (12 KiB
// of int8), and the prefetcher ramped up again at each cut: on a Zen 3 VM, 2 threads, the whole
// gpt2 token's int8 matvecs read 24.5 GB/s in blocks and 27 GB/s in shares (fp32 about equal,
// bf16 +5%), and gpt_decode --weights=int8 went from 4.6-5.2 to 4.3-4.6 ms a token.
template <int M, typename W>
void Matvec(float* out, const float* inp, const W* weight, const float* scales, const float* bias, int64_t C,
            int64_t OC) {
  const float* xp = nullptr;
  if constexpr (M == 1 && std::is_same_v<W, uint16_t>) {
    static thread_local std::vector<float> pairs;
    pairs.resize(static_cast<size_t>(C));
    PairInput(inp, C, pairs.data());
    xp = pairs.data();
  }
#pragma omp parallel
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    RowBlock<M, W>(out, inp, xp, weight, scales, bias, C, OC, OC * t / n, OC * (t + 1) / n);
  }
}

// Matvec<M> for M = 1 .. kMatvecMaxRows, at index M - 1.
template <typename W>
using MatvecFn = void (*)(float*, const float*, const W*, const float*, const float*, int64_t, int64_t);
template <typename W>
constexpr MatvecFn<W> kMatvecByRows[] = {Matvec<1, W>, Matvec<2, W>, Matvec<3, W>, Matvec<4, W>,
                                         Matvec<5, W>, Matvec<6, W>, Matvec<7, W>, Matvec<8, W>};
static_assert(std::size(kMatvecByRows<float>) == kMatvecMaxRows, "one Matvec<M> per allowed row count");

template <typename W>
void MatvecForward(float* out, const float* inp, const W* weight, const float* scales, const float* bias,
                   int64_t M, int64_t C, int64_t OC, std::string_view tag) {
  accounting::CountMatmul(M, C, OC, tag);
  if (M < 1 || M > kMatvecMaxRows) {
    std::fprintf(stderr, "matvec_forward: M=%lld rows; allowed 1 to %lld\n", static_cast<long long>(M),
                 static_cast<long long>(kMatvecMaxRows));
    std::abort();
  }
  kMatvecByRows<W>[M - 1](out, inp, weight, scales, bias, C, OC);
}

}  // namespace

void matvec_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t M,
                    int64_t C, int64_t OC, std::string_view tag) {
  MatvecForward(out, inp, weight, nullptr, bias, M, C, OC, tag);
}

void matvec_forward_bf16(float* out, const float* inp, const uint16_t* weight, const float* bias, int64_t M,
                         int64_t C, int64_t OC, std::string_view tag) {
  MatvecForward(out, inp, weight, nullptr, bias, M, C, OC, tag);
}

void matvec_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t M, int64_t C, int64_t OC, std::string_view tag) {
  MatvecForward(out, inp, weight, scales, bias, M, C, OC, tag);
}

}  // namespace model
