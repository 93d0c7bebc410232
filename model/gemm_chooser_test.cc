// The per-shape chooser: the faster backend wins when one is made slow (a fixture rate table, as
// a ceilings file gives it), measured choices come from real, checked calls, and auto then runs
// each shape on its choice.
#include "model/gemm_chooser.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cpu_gemm_backend.h"
#include "model/step_gemms.h"

namespace model {
namespace {

StepGemm Shape(const char* name, bool ta, bool tb, int64_t M, int64_t N, int64_t K) {
  StepGemm g;
  g.name = name;
  g.trans_a = ta, g.trans_b = tb;
  g.M = M, g.N = N, g.K = K;
  g.calls = 1;
  return g;
}

const std::vector<CpuGemmBackend> kAll(std::begin(kConcreteCpuGemms), std::end(kConcreteCpuGemms));

TEST(FastestCandidate, PicksTheHighestMedianAndSkipsMissingRates) {
  std::vector<GemmCandidateRate> r(3);
  r[0] = {CpuGemmBackend::kOneDnn, 2.0e11, 2.1e11, false};
  r[1] = {CpuGemmBackend::kOneDnnSgemm, 2.2e11, 2.2e11, false};
  r[2] = {CpuGemmBackend::kOpenBlas, 1.0e11, 2.5e11, false};  // a lucky best call does not win
  EXPECT_EQ(FastestCandidate(r), 1);
  r[1].median_flops_per_s = 0;
  EXPECT_EQ(FastestCandidate(r), 0);
  r[2].median_flops_per_s = 2.0e11;  // equal: the first listed
  EXPECT_EQ(FastestCandidate(r), 0);
  EXPECT_EQ(FastestCandidate({}), -1);
}

// Fixture rates for every candidate: nothing is measured, and making one backend slow moves the
// choice to the fastest of the others, shape by shape.
TEST(ChooseCpuGemms, FromAFixtureRateTableTheFasterBackendWins) {
  const std::vector<StepGemm> gemms = {Shape("a.fwd", false, true, 256, 2304, 768),
                                       Shape("a.bwd_input", false, false, 256, 768, 2304)};
  std::map<std::string, double> rates;
  for (const StepGemm& g : gemms) {
    rates[g.Key(CpuGemmBackend::kOneDnn)] = 2.0e11;
    rates[g.Key(CpuGemmBackend::kOneDnnSgemm)] = 1.9e11;
    rates[g.Key(CpuGemmBackend::kOpenBlas)] = 1.8e11;
  }
  std::string source;
  auto c = ChooseCpuGemms(gemms, kAll, rates, 3, &source);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(source, "from the ceilings file");
  ASSERT_EQ(c->size(), 2u);
  for (const GemmChoice& g : *c) {
    EXPECT_EQ(g.backend(), CpuGemmBackend::kOneDnn) << g.gemm.name;
    for (const GemmCandidateRate& r : g.candidates) EXPECT_TRUE(r.from_file);
  }
  // oneDNN's matmul made slow on the first shape only.
  rates[gemms[0].Key(CpuGemmBackend::kOneDnn)] = 0.5e11;
  c = ChooseCpuGemms(gemms, kAll, rates, 3, &source);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0].backend(), CpuGemmBackend::kOneDnnSgemm);
  EXPECT_EQ((*c)[1].backend(), CpuGemmBackend::kOneDnn);
  // ... and then dnnl_sgemm too: OpenBLAS.
  rates[gemms[0].Key(CpuGemmBackend::kOneDnnSgemm)] = 0.4e11;
  c = ChooseCpuGemms(gemms, kAll, rates, 3, &source);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0].backend(), CpuGemmBackend::kOpenBlas);
  EXPECT_DOUBLE_EQ((*c)[0].rate().best_flops_per_s, 1.8e11);

  // Published, auto runs each shape on its choice.
  ASSERT_TRUE(ApplyCpuGemmChoices(*c).ok());
  ScopedCpuGemmBackend scope(CpuGemmBackend::kAuto);
  EXPECT_EQ(ResolveCpuGemmBackend(false, true, 256, 2304, 768), CpuGemmBackend::kOpenBlas);
  EXPECT_EQ(ResolveCpuGemmBackend(false, false, 256, 768, 2304), CpuGemmBackend::kOneDnn);
  const std::vector<std::string> lines = DescribeGemmChoices(*c);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("openblas 180.0*"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("onednn 50.0 "), std::string::npos) << lines[0];
  ASSERT_TRUE(SetCpuGemmChoices({}).ok());
}

// Shapes the file lacks are measured: every candidate runs (and is checked), gets a positive
// median no higher than its best call, and the choice is the highest median.
TEST(ChooseCpuGemms, MeasuresWhatTheFileLacks) {
  const std::vector<StepGemm> gemms = {Shape("small.bwd_weight", true, false, 48, 40, 64)};
  std::map<std::string, double> rates = {{gemms[0].Key(CpuGemmBackend::kOpenBlas), 1e9}};
  std::string source;
  auto c = ChooseCpuGemms(gemms, kAll, rates, 5, &source);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(source.find("1 from the ceilings file, 2 measured at start-up"), std::string::npos) << source;
  const GemmChoice& g = (*c)[0];
  ASSERT_EQ(g.candidates.size(), 3u);
  for (const GemmCandidateRate& r : g.candidates) {
    EXPECT_GT(r.median_flops_per_s, 0) << CpuGemmBackendName(r.backend);
    EXPECT_LE(r.median_flops_per_s, r.best_flops_per_s) << CpuGemmBackendName(r.backend);
  }
  EXPECT_TRUE(g.candidates[2].from_file);
  EXPECT_EQ(g.chosen, FastestCandidate(g.candidates));
}

TEST(ChooseCpuGemms, RejectsAutoAsACandidateAndAnEmptyList) {
  std::string source;
  EXPECT_FALSE(ChooseCpuGemms({Shape("x", false, false, 2, 2, 2)}, {CpuGemmBackend::kAuto}, {}, 1, &source).ok());
  EXPECT_FALSE(ChooseCpuGemms({Shape("x", false, false, 2, 2, 2)}, {}, {}, 1, &source).ok());
}

}  // namespace
}  // namespace model
