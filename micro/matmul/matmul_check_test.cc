// The sample check catches a wrong entry, accepts rounding, and picks distinct entries.
#include "micro/matmul/matmul_check.h"

#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "measure/random_fill.h"
#include "micro/matmul/matmul_cpu.h"

namespace micro {
namespace {

struct Gathered {
  std::vector<float> a_rows, b_cols, c;
};

Gathered Gather(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                int64_t k, int64_t n, const std::vector<std::pair<int64_t, int64_t>>& entries) {
  Gathered g;
  for (auto [i, j] : entries) {
    for (int64_t kk = 0; kk < k; ++kk) {
      g.a_rows.push_back(a[i * k + kk]);
      g.b_cols.push_back(b[kk * n + j]);
    }
    g.c.push_back(c[i * n + j]);
  }
  return g;
}

TEST(MatmulCheckTest, EveryBackendPasses) {
  const int64_t m = 96, k = 200, n = 72;
  std::vector<float> a(m * k), b(k * n);
  FillUniform(a.data(), m * k, 1);
  FillUniform(b.data(), k * n, 2);
  const auto entries = MatmulSampleEntries(m, n, 32);
  for (model::CpuGemmBackend lib : model::kConcreteCpuGemms) {
    std::vector<float> c(m * n, -7.0f);
    MatmulCpu(lib, c.data(), a.data(), b.data(), m, k, n);
    Gathered g = Gather(a, b, c, k, n, entries);
    EXPECT_TRUE(
        CheckMatmulSamples(accounting::Dtype::kFp32, k, entries, g.a_rows.data(), g.b_cols.data(), g.c.data())
            .ok())
        << model::CpuGemmBackendName(lib);
  }
}

TEST(MatmulCheckTest, SgemmPassesAndACorruptedEntryFails) {
  const int64_t m = 96, k = 200, n = 72;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  FillUniform(a.data(), m * k, 1);
  FillUniform(b.data(), k * n, 2);
  MatmulCpu(model::CpuGemmBackend::kOpenBlas, c.data(), a.data(), b.data(), m, k, n);
  const auto entries = MatmulSampleEntries(m, n, 32);
  Gathered g = Gather(a, b, c, k, n, entries);
  EXPECT_TRUE(
      CheckMatmulSamples(accounting::Dtype::kFp32, k, entries, g.a_rows.data(), g.b_cols.data(), g.c.data())
          .ok());
  g.c[5] += 0.01f;  // far above fp32 rounding for |a b| sums of ~50
  absl::Status s =
      CheckMatmulSamples(accounting::Dtype::kFp32, k, entries, g.a_rows.data(), g.b_cols.data(), g.c.data());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("incorrect fp32 matmul"), absl::string_view::npos) << s;
  // The same error passes under the looser bf16 tolerance.
  EXPECT_TRUE(
      CheckMatmulSamples(accounting::Dtype::kBf16, k, entries, g.a_rows.data(), g.b_cols.data(), g.c.data())
          .ok());
}

TEST(MatmulCheckTest, NanIsAnError) {
  const auto entries = MatmulSampleEntries(1, 1, 1);
  float a = 1, b = 1, c = std::nanf("");
  EXPECT_FALSE(CheckMatmulSamples(accounting::Dtype::kBf16, 1, entries, &a, &b, &c).ok());
}

TEST(MatmulCheckTest, SampleEntriesAreDistinctInRangeAndIncludeCorners) {
  const auto e = MatmulSampleEntries(50, 7, 64);
  ASSERT_EQ(e.size(), 64u);
  EXPECT_EQ(e[0], std::make_pair(int64_t{0}, int64_t{0}));
  EXPECT_EQ(e[1], std::make_pair(int64_t{49}, int64_t{6}));
  std::set<std::pair<int64_t, int64_t>> seen(e.begin(), e.end());
  EXPECT_EQ(seen.size(), e.size());
  for (auto [i, j] : e) {
    EXPECT_LT(i, 50);
    EXPECT_LT(j, 7);
  }
  // Fewer entries than asked when the matrix is smaller.
  EXPECT_EQ(MatmulSampleEntries(2, 2, 64).size(), 4u);
}

TEST(MatmulCheckTest, TolerancesLoosenWithPrecision) {
  using accounting::Dtype;
  EXPECT_LT(MatmulTolerance(Dtype::kFp32), MatmulTolerance(Dtype::kTf32));
  EXPECT_LE(MatmulTolerance(Dtype::kFp16), MatmulTolerance(Dtype::kBf16));
}

}  // namespace
}  // namespace micro
