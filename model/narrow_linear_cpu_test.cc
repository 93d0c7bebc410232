// The Linear kernels over narrow weights against an fp64 reference over the widened weights
// (q * s, or the bf16 value: the weights they compute with): int8's matrix-vector form for
// M = 1 .. 8 rows, and the prompt's widened-tile GEMM for int8 and bf16, over shapes whose C is not a multiple of the 8 fp32 lanes (and C < 8),
// with output rows past the row groups and past a tile, with and without a bias, on every
// concrete CPU GEMM backend; each counts 2*M*C*OC FLOPs once.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/bf16.h"
#include "model/cpu_gemm_backend.h"
#include "model/matmul_dequant_cpu.h"
#include "model/matvec_cpu.h"
#include "model/quantize_int8.h"

namespace model {
namespace {

std::vector<float> Uniform(int64_t n, uint32_t seed) {
  std::vector<float> w(n);
  uint32_t s = seed * 2654435761u + 7;
  for (float& v : w) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(s >> 8) / 16777216.0f * 2 - 1;  // [-1, 1)
  }
  return w;
}

struct Quantised {
  int64_t OC, C;
  std::vector<int8_t> q;
  std::vector<float> scales, bias, dequant;
};

Quantised Make(int64_t OC, int64_t C, uint32_t seed) {
  Quantised k{OC, C, std::vector<int8_t>(OC * C), std::vector<float>(OC), Uniform(OC, seed + 1),
              std::vector<float>(OC * C)};
  const std::vector<float> w = Uniform(OC * C, seed);
  EXPECT_TRUE(QuantizeInt8(w.data(), OC, C, k.q.data(), k.scales.data()).ok());
  DequantizeInt8(k.q.data(), k.scales.data(), OC, C, k.dequant.data());
  return k;
}

// out (M, OC) in fp64 over the dequantised weights.
std::vector<double> Reference(const Quantised& k, const std::vector<float>& x, int64_t M, bool bias) {
  std::vector<double> out(M * k.OC);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t o = 0; o < k.OC; ++o) {
      double s = bias ? k.bias[o] : 0.0;
      for (int64_t i = 0; i < k.C; ++i) s += static_cast<double>(x[m * k.C + i]) * k.dequant[o * k.C + i];
      out[m * k.OC + o] = s;
    }
  }
  return out;
}

// max |got - want| / (sqrt(C) * max|x| * max|w| ...): relative to the size of a dot product's terms.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, int64_t C, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  // fp32 sums of C terms of magnitude <= 1: an error of a few ulps times C at worst.
  const double tol = 1e-6 * static_cast<double>(C) + 1e-6;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << what << " element " << i;
  }
}

struct Shape {
  int64_t OC, C;
};
// C: below the lanes, not a multiple of 8, of 8 not of 32 (the unrolled width), of 32; OC not a
// multiple of the threads' shares' four row groups.
constexpr Shape kShapes[] = {{5, 3}, {131, 77}, {70, 40}, {64, 96}, {200, 771}};

TEST(MatvecInt8, EqualsTheFp64ProductOfTheDequantisedWeights) {
  for (const Shape& sh : kShapes) {
    const Quantised k = Make(sh.OC, sh.C, static_cast<uint32_t>(sh.OC * 31 + sh.C));
    const std::vector<float> x = Uniform(kMatvecMaxRows * sh.C, 17);
    for (int64_t M = 1; M <= kMatvecMaxRows; ++M) {
      for (bool bias : {true, false}) {
        const std::string what = absl::StrCat("OC=", sh.OC, " C=", sh.C, " M=", M, bias ? " bias" : " no bias");
        std::vector<float> got(M * sh.OC, NAN);
        accounting::FlopCounter flops;
        {
          accounting::ScopedFlopCounter scope(&flops);
          matvec_forward_int8(got.data(), x.data(), k.q.data(), k.scales.data(), bias ? k.bias.data() : nullptr, M,
                              sh.C, sh.OC, "qkv");
        }
        ExpectClose(got, Reference(k, x, M, bias), sh.C, what);
        EXPECT_EQ(flops.matmul_calls(), 1) << what;
        EXPECT_DOUBLE_EQ(flops.by_tag()["qkv"], 2.0 * M * sh.C * sh.OC) << what;
      }
    }
  }
}

TEST(MatmulInt8, PromptTilesEqualTheFp64ProductOfTheDequantisedWeights) {
  // 1100 output rows of C = 2048: tiles of DequantTileRows = 512, the last one short.
  ASSERT_EQ(DequantTileRows(2048, 1100), 512);
  ASSERT_EQ(DequantTileRows(3, 5), 5);
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back({1100, 2048});
  for (CpuGemmBackend backend : kConcreteCpuGemms) {
    ScopedCpuGemmBackend scoped(backend);
    for (const Shape& sh : shapes) {
      const Quantised k = Make(sh.OC, sh.C, static_cast<uint32_t>(sh.OC * 7 + sh.C));
      for (int64_t rows : {9, 37}) {
        const std::vector<float> x = Uniform(rows * sh.C, 23);
        std::vector<float> scratch(DequantScratchFloats(sh.C, sh.OC));
        for (bool bias : {true, false}) {
          const std::string what = absl::StrCat(CpuGemmBackendName(backend), " OC=", sh.OC, " C=", sh.C,
                                                " rows=", rows, bias ? " bias" : " no bias");
          std::vector<float> got(rows * sh.OC, NAN);
          accounting::FlopCounter flops;
          {
            accounting::ScopedFlopCounter scope(&flops);
            matmul_forward_int8(got.data(), x.data(), k.q.data(), k.scales.data(), bias ? k.bias.data() : nullptr,
                                rows, sh.C, sh.OC, scratch.data(), "fc");
          }
          ExpectClose(got, Reference(k, x, rows, bias), sh.C, what);
          EXPECT_EQ(flops.matmul_calls(), 1) << what;
          EXPECT_DOUBLE_EQ(flops.by_tag()["fc"], 2.0 * rows * sh.C * sh.OC) << what;
        }
      }
    }
  }
}

// bf16 weights through the same tiles: the weights are Make's, rounded to bf16, and the
// reference is over the rounded values.
TEST(MatmulBf16w, PromptTilesEqualTheFp64ProductOfTheWidenedWeights) {
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back({1100, 2048});
  for (CpuGemmBackend backend : kConcreteCpuGemms) {
    ScopedCpuGemmBackend scoped(backend);
    for (const Shape& sh : shapes) {
      Quantised k = Make(sh.OC, sh.C, static_cast<uint32_t>(sh.OC * 5 + sh.C));
      std::vector<uint16_t> w(k.dequant.size());
      for (size_t i = 0; i < w.size(); ++i) {
        w[i] = FloatToBf16(k.dequant[i]);
        k.dequant[i] = Bf16ToFloat(w[i]);
      }
      const int64_t rows = 37;
      const std::vector<float> x = Uniform(rows * sh.C, 29);
      std::vector<float> scratch(DequantScratchFloats(sh.C, sh.OC));
      for (bool bias : {true, false}) {
        const std::string what = absl::StrCat(CpuGemmBackendName(backend), " OC=", sh.OC, " C=", sh.C,
                                              bias ? " bias" : " no bias");
        std::vector<float> got(rows * sh.OC, NAN);
        accounting::FlopCounter flops;
        {
          accounting::ScopedFlopCounter scope(&flops);
          matmul_forward_bf16w(got.data(), x.data(), w.data(), bias ? k.bias.data() : nullptr, rows, sh.C, sh.OC,
                               scratch.data(), "fc");
        }
        ExpectClose(got, Reference(k, x, rows, bias), sh.C, what);
        EXPECT_EQ(flops.matmul_calls(), 1) << what;
        EXPECT_DOUBLE_EQ(flops.by_tag()["fc"], 2.0 * rows * sh.C * sh.OC) << what;
      }
    }
  }
}

}  // namespace
}  // namespace model
