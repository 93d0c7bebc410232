// The int8 weight-only GEMV (int8_gemv_cuda.h) against an fp64 reference over the dequantised
// weights: fp32 and bf16 activations, M = 1..8 rows, with a bias and without, C a multiple of 16
// (128-bit weight loads), of 4 but not 16 (32-bit loads), of neither (one weight a load), and
// misaligned buffers that force the narrower loads; an all-zero row (scale 0); bad arguments
// refused with nothing written. Plus the host arithmetic of int8_gemv_math.h. Built twice:
// int8_gemv_emu_test (the kernel emulator, small shapes) and int8_gemv_cuda_test (a GPU, decode
// shapes of GPT-2 and Llama sizes; skipped without a device).
//
// Each output is held to an error bound, not a fixed tolerance: fp32 accumulation over C terms,
// each lane's C/32 in order then a 5-level warp tree, errs by at most about (C/32 + 5) * 2^-24 of
// sum_c |x_c * w_c| (+ the bias); bf16 outputs add their rounding, 2^-8 of the value. The bound
// is doubled for slack; a wrong weight, scale, row or a lost chunk of C is far outside it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/int8_gemv_cuda.h"
#include "model/cuda/int8_gemv_math.h"
#include "model/cuda/test_backend.h"
#include "model/data/rng.h"
#include "model/quantize_int8.h"

namespace model {
namespace cuda {
namespace {

using test::DeviceBuffer;

std::vector<float> RandomNormal(int64_t n, double stddev, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(rng.Normal() * stddev);
  return v;
}

struct Shape {
  int64_t C, OC;
};

struct Case {
  Shape shape;
  int M;
  bool bias;
  int q_offset = 0;    // bytes the weights start past a 256-byte boundary (forces narrower loads)
  int inp_offset = 0;  // elements the activations start past one
  bool zero_row = false;
};

std::string Describe(const Case& k) {
  return "C=" + std::to_string(k.shape.C) + " OC=" + std::to_string(k.shape.OC) + " M=" + std::to_string(k.M) +
         (k.bias ? " bias" : " no bias") + " q+" + std::to_string(k.q_offset) + " inp+" +
         std::to_string(k.inp_offset) + (k.zero_row ? " zero row" : "");
}

// Runs one case on the device and checks every output against the fp64 reference and its bound.
template <typename S>
void CheckCase(const Case& k, uint64_t seed) {
  SCOPED_TRACE(Describe(k));
  const int64_t C = k.shape.C, OC = k.shape.OC, M = k.M;
  std::vector<float> w = RandomNormal(OC * C, 0.02, seed);  // GPT-2's init scale
  if (k.zero_row) std::fill(w.begin() + (OC / 2) * C, w.begin() + (OC / 2 + 1) * C, 0.0f);
  Int8Matrix qw;
  ASSERT_TRUE(QuantizeInt8Matrix(w.data(), OC, C, &qw).ok());
  if (k.zero_row) {
    ASSERT_EQ(qw.scales[OC / 2], 0.0f);
  }
  // The values the device holds: activations and bias rounded through S.
  const std::vector<float> x = test::Quantized<S>(RandomNormal(M * C, 1.0, seed + 1));
  const std::vector<float> bias = test::Quantized<S>(RandomNormal(OC, 0.5, seed + 2));

  std::vector<int8_t> q_host(static_cast<size_t>(k.q_offset), 0);
  q_host.insert(q_host.end(), qw.q.begin(), qw.q.end());
  std::vector<S> x_host(static_cast<size_t>(k.inp_offset), FromFloat<S>(0.0f));
  const std::vector<S> x_s = test::ToStorage<S>(x);
  x_host.insert(x_host.end(), x_s.begin(), x_s.end());
  DeviceBuffer<int8_t> d_q(q_host);
  DeviceBuffer<float> d_scales(qw.scales);
  DeviceBuffer<S> d_x(x_host);
  DeviceBuffer<S> d_bias = test::Dev<S>(bias);
  DeviceBuffer<S> d_out = test::Dev<S>(std::vector<float>(static_cast<size_t>(M * OC), NAN));
  ASSERT_EQ(int8_gemv_forward<S>(d_out.get(), d_x.get() + k.inp_offset, d_q.get() + k.q_offset, d_scales.get(),
                                 k.bias ? d_bias.get() : nullptr, M, C, OC),
            "");
  const std::vector<float> got = test::Host(d_out);

  const double rounding = sizeof(S) == 2 ? std::ldexp(1.0, -8) : 0.0;
  int bad = 0;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t o = 0; o < OC; ++o) {
      double ref = k.bias ? bias[o] : 0.0, magnitude = k.bias ? std::fabs(bias[o]) : 0.0;
      for (int64_t c = 0; c < C; ++c) {
        const double term = static_cast<double>(x[m * C + c]) * qw.q[o * C + c] * static_cast<double>(qw.scales[o]);
        ref += term;
        magnitude += std::fabs(term);
      }
      const double bound = 2 * ((static_cast<double>(C) / 32 + 6) * std::ldexp(magnitude, -24) + rounding * std::fabs(ref));
      const double g = got[m * OC + o];
      if (!(std::fabs(g - ref) <= bound) && ++bad <= 5) {
        ADD_FAILURE() << "out[" << m << ", " << o << "] = " << g << ", reference " << ref << ", error "
                      << std::fabs(g - ref) << " > bound " << bound;
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

// Shapes: on the emulator small ones; on a GPU GPT-2 124M's decode GEMVs (qkv, fc, fc proj) and a
// Llama 3 8B one, plus odd widths.
std::vector<Shape> Shapes() {
  if (test::IsEmulated()) return {{64, 40}, {100, 33}, {37, 20}, {4, 3}, {1, 1}};
  return {{768, 2304}, {768, 3072}, {3072, 768}, {4096, 14336}, {4100, 1000}, {4099, 257}};
}

template <typename S>
void CheckShapes() {
  uint64_t seed = 100;
  for (const Shape& shape : Shapes()) {
    for (int M = 1; M <= kInt8GemvMaxRows; ++M) {
      CheckCase<S>(Case{shape, M, M % 2 == 1}, seed++);
      if (M == 1 || M == kInt8GemvMaxRows) CheckCase<S>(Case{shape, M, M == 1 ? false : true}, seed++);
    }
  }
}

TEST(Int8GemvTest, MatchesFp64ReferenceFp32) {
  SKIP_WITHOUT_DEVICE();
  CheckShapes<float>();
}

TEST(Int8GemvTest, MatchesFp64ReferenceBf16) {
  SKIP_WITHOUT_DEVICE();
  CheckShapes<Bf16>();
}

// Misaligned weights or activations take the narrower loads (4-byte, one weight), and still match.
TEST(Int8GemvTest, MisalignedBuffersFallBackToNarrowerLoads) {
  SKIP_WITHOUT_DEVICE();
  const Shape s = test::IsEmulated() ? Shape{64, 24} : Shape{768, 768};
  CheckCase<float>(Case{s, 3, true, /*q_offset=*/4}, 1);   // 16-byte loads impossible: 4-byte ones
  CheckCase<float>(Case{s, 3, true, /*q_offset=*/1}, 2);   // one weight a load
  CheckCase<float>(Case{s, 5, false, 0, /*inp_offset=*/1}, 3);
  CheckCase<Bf16>(Case{s, 2, true, 0, /*inp_offset=*/2}, 4);  // 4-byte aligned bf16: not 8
  CheckCase<Bf16>(Case{s, 8, true, /*q_offset=*/4, /*inp_offset=*/4}, 5);
}

TEST(Int8GemvTest, ZeroRowGivesTheBias) {
  SKIP_WITHOUT_DEVICE();
  const Shape s = test::IsEmulated() ? Shape{48, 9} : Shape{768, 1024};
  CheckCase<float>(Case{s, 4, true, 0, 0, /*zero_row=*/true}, 7);
  CheckCase<float>(Case{s, 1, false, 0, 0, /*zero_row=*/true}, 8);
}

TEST(Int8GemvTest, BadArgumentsAreRefusedAndNothingRuns) {
  SKIP_WITHOUT_DEVICE();
  const int64_t C = 8, OC = 4;
  DeviceBuffer<int8_t> q(std::vector<int8_t>(C * OC, 1));
  DeviceBuffer<float> scales(std::vector<float>(OC, 1.0f));
  DeviceBuffer<float> x(std::vector<float>(9 * C, 1.0f));
  DeviceBuffer<float> out(std::vector<float>(9 * OC, -5.0f));
  struct Bad {
    int64_t M, C, OC;
    bool null_q;
    std::string names;
  };
  for (const Bad& b : std::vector<Bad>{{0, C, OC, false, "M=0"},
                                       {9, C, OC, false, "M=9"},
                                       {-1, C, OC, false, "M=-1"},
                                       {1, 0, OC, false, "C=0"},
                                       {1, C, 0, false, "OC=0"},
                                       {1, C, int64_t{1} << 31, false, "OC=2147483648"},
                                       {1, C, OC, true, "q (the int8 weights) is null"}}) {
    const std::string error = int8_gemv_forward<float>(out.get(), x.get(), b.null_q ? nullptr : q.get(),
                                                       scales.get(), nullptr, b.M, b.C, b.OC);
    EXPECT_NE(error.find(b.names), std::string::npos) << "'" << error << "' should name " << b.names;
  }
  EXPECT_NE(int8_gemv_forward<float>(out.get(), x.get(), q.get(), nullptr, nullptr, 1, C, OC).find("scales"),
            std::string::npos);
  EXPECT_NE(int8_gemv_forward<float>(nullptr, x.get(), q.get(), scales.get(), nullptr, 1, C, OC).find("out"),
            std::string::npos);
  for (float v : out.Download()) ASSERT_EQ(v, -5.0f) << "a refused call wrote its output";
}

// --- the host arithmetic ------------------------------------------------------------------------
TEST(Int8GemvMathTest, LanesSignExtendLittleEndian) {
  const uint32_t word = 0x80FF7F01u;  // bytes, low first: 1, 127, -1, -128
  EXPECT_EQ(Int8Lane(word, 0), 1.0f);
  EXPECT_EQ(Int8Lane(word, 1), 127.0f);
  EXPECT_EQ(Int8Lane(word, 2), -1.0f);
  EXPECT_EQ(Int8Lane(word, 3), -128.0f);
  const int8_t bytes[4] = {-127, 5, 0, 127};
  uint32_t packed;
  std::memcpy(&packed, bytes, 4);  // what a 4-byte load of a row gives
  for (int k = 0; k < 4; ++k) EXPECT_EQ(Int8Lane(packed, k), static_cast<float>(bytes[k])) << k;
}

TEST(Int8GemvMathTest, Dot4AndOutput) {
  const int8_t bytes[4] = {-127, 5, 0, 127};
  uint32_t packed;
  std::memcpy(&packed, bytes, 4);
  // 10 + (-127)(0.5) + 5(2) + 0(100) + 127(-0.25) = 10 - 63.5 + 10 - 31.75 = -75.25 (exact in fp32)
  EXPECT_EQ(Int8Dot4(packed, 0.5f, 2.0f, 100.0f, -0.25f, 10.0f), -75.25f);
  EXPECT_EQ(Int8GemvOutput(-75.25f, 0.5f, 1.0f), -36.625f);
  EXPECT_EQ(Int8GemvOutput(123.0f, 0.0f, 0.75f), 0.75f);  // a zero row: the bias alone
}

TEST(Int8GemvMathTest, LoadBytesFollowWidthAndAlignment) {
  alignas(16) static int8_t buf[64];
  EXPECT_EQ(Int8GemvLoadBytes(buf, 64, true), 16);
  EXPECT_EQ(Int8GemvLoadBytes(buf + 4, 64, true), 4);   // rows 4-byte aligned only
  EXPECT_EQ(Int8GemvLoadBytes(buf + 1, 64, true), 1);
  EXPECT_EQ(Int8GemvLoadBytes(buf, 100, true), 4);      // C % 16 != 0: rows 2..n misaligned for 16
  EXPECT_EQ(Int8GemvLoadBytes(buf, 37, true), 1);
  EXPECT_EQ(Int8GemvLoadBytes(buf, 64, false), 1);      // activations not aligned for 4 at a time
}

}  // namespace
}  // namespace cuda
}  // namespace model
