// Every gate status on synthetic runs, the verification convention, metrics and calibration.
#include "tools/gate/gate_compare.h"

#include "gtest/gtest.h"

namespace gate {
namespace {

using nlohmann::json;

// One iteration entry as Google Benchmark writes it, with verified = 1 unless overridden.
json Entry(const std::string& name, double real_ns, int rep, json extra = json::object()) {
  json e = {
      {"name", name},       {"run_name", name},     {"run_type", "iteration"}, {"repetition_index", rep},
      {"iterations", 1000}, {"real_time", real_ns}, {"cpu_time", real_ns},     {"time_unit", "ns"},
      {"verified", 1.0}};
  for (auto& [k, v] : extra.items()) e[k] = v;
  return e;
}

// n repetitions around `center` (spread +-1%, distinct values).
std::vector<json> Reps(const std::string& name, double center, int n, json extra = json::object()) {
  std::vector<json> v;
  for (int i = 0; i < n; ++i) {
    double jitter = 0.01 * (static_cast<double>(i) / (n - 1) * 2.0 - 1.0);
    v.push_back(Entry(name, center * (1.0 + jitter), i, extra));
  }
  return v;
}

Run MakeRun(const std::vector<std::vector<json>>& cases) {
  json j = {{"context", json::object()}, {"benchmarks", json::array()}};
  for (const auto& c : cases)
    for (const auto& e : c) j["benchmarks"].push_back(e);
  absl::StatusOr<gate::Run> r = ParseRun(j, "synthetic");
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

const CaseResult& Find(const Comparison& c, const std::string& name) {
  for (const auto& r : c.cases)
    if (r.name == name) return r;
  ADD_FAILURE() << "no result for " << name;
  static CaseResult none;
  return none;
}

CompareOptions Defaults() {
  CompareOptions o;
  o.calibration = "";
  return o;
}

TEST(GateCompareTest, EveryStatus) {
  gate::Run base = MakeRun({Reps("BM_Slow", 1000, 9), Reps("BM_Fast", 1000, 9), Reps("BM_Same", 1000, 9),
                            Reps("BM_Gone", 1000, 9), Reps("BM_Unchecked", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_Slow", 1250, 9), Reps("BM_Fast", 800, 9), Reps("BM_Same", 1003, 9),
                           Reps("BM_Added", 500, 9), Reps("BM_Unchecked", 1000, 9, {{"verified", 0.0}})});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Find(*c, "BM_Slow").status, CaseStatus::kRegressed);
  EXPECT_NEAR(Find(*c, "BM_Slow").change, 0.25, 1e-9);
  EXPECT_NEAR(Find(*c, "BM_Slow").p_raw, 1.0 / 48620.0, 1e-12);    // every current rep slower
  EXPECT_EQ(c->compared, 3);                                       // Slow, Fast, Same
  EXPECT_NEAR(Find(*c, "BM_Slow").p_value, 3.0 / 48620.0, 1e-12);  // Holm: smallest of 3, x3
  EXPECT_TRUE(Find(*c, "BM_Slow").exact);
  EXPECT_EQ(Find(*c, "BM_Fast").status, CaseStatus::kImproved);
  EXPECT_NEAR(Find(*c, "BM_Fast").change, -0.2, 1e-9);
  EXPECT_EQ(Find(*c, "BM_Same").status, CaseStatus::kSame);
  EXPECT_EQ(Find(*c, "BM_Added").status, CaseStatus::kNew);
  EXPECT_EQ(Find(*c, "BM_Gone").status, CaseStatus::kMissing);
  EXPECT_EQ(Find(*c, "BM_Unchecked").status, CaseStatus::kUnverified);
  EXPECT_EQ(c->Count(CaseStatus::kRegressed), 1);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(GateCompareTest, HolmKeepsOneModerateOutlierAmongManyCasesFromFailing) {
  // BM_Odd: medians +7.7%, one-sided exact p = 0.02515 (tools/gate/testdata/mwu_reference.py style
  // enumeration): a regression on its own, not among 7 cases (Holm: 7 x 0.02515 = 0.176).
  std::vector<json> base_odd, cur_odd;
  const double b[] = {100, 101, 102, 103, 104, 105, 106, 107, 108};
  const double c[] = {90, 91, 110, 111, 112, 113, 114, 115, 116};
  for (int i = 0; i < 9; ++i) {
    base_odd.push_back(Entry("BM_Odd", b[i], i));
    cur_odd.push_back(Entry("BM_Odd", c[i], i));
  }
  std::vector<std::vector<json>> base_cases = {base_odd}, cur_cases = {cur_odd};
  for (int k = 0; k < 6; ++k) {
    std::string name = "BM_Same" + std::to_string(k);
    base_cases.push_back(Reps(name, 1000, 9));
    cur_cases.push_back(Reps(name, 1000, 9));
  }
  gate::Run base = MakeRun(base_cases), cur = MakeRun(cur_cases);
  absl::StatusOr<Comparison> with = Compare(base, cur, Defaults());
  ASSERT_TRUE(with.ok());
  EXPECT_EQ(with->compared, 7);
  EXPECT_NEAR(Find(*with, "BM_Odd").p_raw, 0.025154257507198685, 1e-12);
  EXPECT_NEAR(Find(*with, "BM_Odd").p_value, 7 * 0.025154257507198685, 1e-12);
  EXPECT_EQ(Find(*with, "BM_Odd").status, CaseStatus::kSame);
  CompareOptions uncorrected = Defaults();
  uncorrected.holm = false;
  absl::StatusOr<Comparison> without = Compare(base, cur, uncorrected);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(Find(*without, "BM_Odd").status, CaseStatus::kRegressed);
}

TEST(GateCompareTest, NoisyCaseNeedsAChangeBeyondItsBaselineSpread) {
  // Baseline repetitions of a bimodal case: sorted 347 357 358 396 402 405 412 434 435,
  // quartiles (positions 2 and 6) 358 and 412: IQR / median = 54 / 402 = 13.4%.
  const double b[] = {347, 396, 357, 435, 358, 434, 405, 402, 412};
  std::vector<json> base_reps, cur_reps;
  for (int i = 0; i < 9; ++i) {
    base_reps.push_back(Entry("BM_Noisy", b[i], i));
    cur_reps.push_back(Entry("BM_Noisy", 450 + i, i));  // +12.2% median: under 13.4%
  }
  gate::Run base = MakeRun({base_reps}), cur = MakeRun({cur_reps});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  const CaseResult& r = Find(*c, "BM_Noisy");
  EXPECT_NEAR(r.min_effect, (412.0 - 358.0) / 402.0, 1e-12);
  EXPECT_LT(r.p_value, 0.05);
  EXPECT_EQ(r.status, CaseStatus::kSame);
  EXPECT_NE(r.note.find("needs 13.4% (baseline IQR)"), std::string::npos) << r.note;
  CompareOptions off = Defaults();
  off.noise_floor = 0;
  c = Compare(base, cur, off);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_Noisy").status, CaseStatus::kRegressed);
  EXPECT_DOUBLE_EQ(Find(*c, "BM_Noisy").min_effect, 0.05);
}

TEST(GateCompareTest, SignificantButSmallChangeIsSame) {
  // 3% slower in every repetition: significant (p = 1/48620) but under the 5% effect size.
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_A", 1030, 9)});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kSame);
  EXPECT_LT(Find(*c, "BM_A").p_value, 0.05);
  CompareOptions tight = Defaults();
  tight.threshold = 0.02;
  c = Compare(base, cur, tight);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kRegressed);
}

TEST(GateCompareTest, LargeButNotSignificantChangeIsSame) {
  // Medians 25% apart, but the samples overlap: 1 outlier-heavy repetition set each side.
  gate::Run base = MakeRun({{Entry("BM_A", 1000, 0), Entry("BM_A", 2000, 1), Entry("BM_A", 900, 2)}});
  gate::Run cur = MakeRun({{Entry("BM_A", 1250, 0), Entry("BM_A", 950, 1), Entry("BM_A", 2100, 2)}});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kSame);
  EXPECT_GE(Find(*c, "BM_A").p_value, 0.05);
  // Fewer than 9 repetitions: a warning on the case and overall.
  EXPECT_NE(Find(*c, "BM_A").note.find("repetitions"), std::string::npos);
  ASSERT_FALSE(c->warnings.empty());
  EXPECT_NE(c->warnings[0].find("fewer than 9"), std::string::npos);
}

TEST(GateCompareTest, ErrorOccurredIsUnverifiedWithItsMessage) {
  gate::Run base = MakeRun({Reps("BM_Cuda", 1000, 9)});
  gate::Run cur =
      MakeRun({{Entry("BM_Cuda", 0, 0, {{"error_occurred", true}, {"error_message", "no CUDA device"}})}});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_Cuda").status, CaseStatus::kUnverified);
  EXPECT_NE(Find(*c, "BM_Cuda").note.find("no CUDA device"), std::string::npos);
}

TEST(GateCompareTest, VerificationConvention) {
  std::vector<json> ok = Reps("BM_A", 1000, 3);
  EXPECT_FALSE(UnverifiedReason(ok, true).has_value());
  std::vector<json> no_counter = ok;
  for (auto& e : no_counter) e.erase("verified");
  EXPECT_TRUE(UnverifiedReason(no_counter, true).has_value());
  EXPECT_FALSE(UnverifiedReason(no_counter, false).has_value());
  std::vector<json> one_bad = ok;
  one_bad[1]["verified"] = 0.0;
  EXPECT_EQ(*UnverifiedReason(one_bad, false), "output check failed (verified = 0)");
  std::vector<json> summed = ok;
  summed[0]["verified"] = 2.0;  // two threads summed instead of averaged
  EXPECT_NE(UnverifiedReason(summed, true)->find("kAvgThreads"), std::string::npos);
}

TEST(GateCompareTest, HigherIsBetterCounter) {
  json fast = {{"tokens_per_second", 1000.0}};
  gate::Run base = MakeRun({Reps("BM_Step", 5e6, 9, fast)});
  std::vector<json> cur_reps = Reps("BM_Step", 5e6, 9);
  for (int i = 0; i < 9; ++i) cur_reps[i]["tokens_per_second"] = 700.0 + i;  // 30% fewer tokens/s
  gate::Run cur = MakeRun({cur_reps});
  CompareOptions o = Defaults();
  o.metric = *ParseMetric("tokens_per_second");
  EXPECT_TRUE(o.metric.higher_is_better);
  // Baseline has all-equal values: ties force the normal approximation.
  absl::StatusOr<Comparison> c = Compare(base, cur, o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Find(*c, "BM_Step").status, CaseStatus::kRegressed);
  EXPECT_NEAR(Find(*c, "BM_Step").change, -0.296, 1e-9);
  EXPECT_FALSE(Find(*c, "BM_Step").exact);
  // The same numbers read as lower-is-better are an improvement.
  o.metric = *ParseMetric("tokens_per_second:lower");
  c = Compare(base, cur, o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_Step").status, CaseStatus::kImproved);
}

TEST(GateCompareTest, CaseWithoutTheCounterIsNotCompared) {
  gate::Run base = MakeRun({Reps("BM_Matmul", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_Matmul", 2000, 9)});
  CompareOptions o = Defaults();
  o.metric = *ParseMetric("tokens_per_second");
  absl::StatusOr<Comparison> c = Compare(base, cur, o);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->cases.empty());
  ASSERT_EQ(c->not_compared.size(), 1u);
  EXPECT_EQ(c->Count(CaseStatus::kRegressed), 0);
}

TEST(GateCompareTest, TimeUnitsAreConverted) {
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9)});                    // 1000 ns
  std::vector<json> cur = Reps("BM_A", 1.0, 9, {{"time_unit", "us"}});  // 1 us
  absl::StatusOr<Comparison> c = Compare(base, MakeRun({cur}), Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kSame);
  EXPECT_NEAR(Find(*c, "BM_A").change, 0.0, 1e-9);
  EXPECT_NEAR(Find(*c, "BM_A").baseline_median, 1e-6, 1e-15);
}

TEST(GateCompareTest, CalibrationRemovesAWholeMachineSlowdown) {
  const std::string cal = "BM_Calibration/cpu/fma/real_time/threads:2";
  // The current run's machine is 30% slower on everything, calibration included.
  gate::Run base = MakeRun({Reps(cal, 100, 9), Reps("BM_A", 1000, 9), Reps("BM_B", 1000, 9)});
  gate::Run cur = MakeRun({Reps(cal, 130, 9), Reps("BM_A", 1300, 9), Reps("BM_B", 1300 * 1.25, 9)});
  CompareOptions raw = Defaults();
  absl::StatusOr<Comparison> c = Compare(base, cur, raw);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->calibrated);
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kRegressed);  // a false alarm without it
  for (const auto& r : c->cases) EXPECT_NE(r.name, cal) << "calibration cases are never gated";

  CompareOptions shown = Defaults();
  shown.calibration = "BM_Calibration/cpu/fma";  // the factor is computed and shown only
  c = Compare(base, cur, shown);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->calibrated);
  EXPECT_FALSE(c->normalized);
  EXPECT_NEAR(c->calibration_factor, 1.3, 1e-9);
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kRegressed);

  CompareOptions calibrated = shown;
  calibrated.normalize = true;
  c = Compare(base, cur, calibrated);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->calibrated);
  EXPECT_EQ(c->calibration_case, cal);
  EXPECT_NEAR(c->calibration_factor, 1.3, 1e-9);
  EXPECT_EQ(Find(*c, "BM_A").status, CaseStatus::kSame);
  EXPECT_NEAR(Find(*c, "BM_A").change, 0.0, 1e-9);
  EXPECT_EQ(Find(*c, "BM_B").status, CaseStatus::kRegressed);  // the real 25% still shows
  EXPECT_NEAR(Find(*c, "BM_B").change, 0.25, 1e-9);
}

TEST(GateCompareTest, CalibrationMissingOnOneSideWarnsAndComparesRaw) {
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_Calibration/cpu/fma", 100, 9), Reps("BM_A", 1000, 9)});
  CompareOptions o = Defaults();
  o.calibration = "BM_Calibration/cpu/fma";
  o.normalize = true;
  absl::StatusOr<Comparison> c = Compare(base, cur, o);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->calibrated);
  ASSERT_FALSE(c->warnings.empty());
  EXPECT_NE(c->warnings[0].find("not in both runs"), std::string::npos);
}

TEST(GateCompareTest, BusyMachineIsWarnedAbout) {
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9, {{"mlbench_foreign_cpu", 0.02}})});
  gate::Run quiet = MakeRun({Reps("BM_A", 1000, 9, {{"mlbench_foreign_cpu", 0.05}})});
  gate::Run busy = MakeRun({Reps("BM_A", 1000, 9, {{"mlbench_contention", 0.6}})});
  absl::StatusOr<Comparison> c = Compare(base, quiet, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->warnings.empty());
  c = Compare(base, busy, Defaults());
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("busy during the current run"), std::string::npos);
  EXPECT_NE(c->warnings[0].find("60%"), std::string::npos);
}

TEST(GateCompareTest, DifferentThreadCountsAreWarnedAbout) {
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_A", 1000, 9)});
  base.context["mlbench"] = {{"threads", 1}};
  cur.context["mlbench"] = {{"threads", 0}};
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("threads = 1, this run with threads = 0"), std::string::npos)
      << c->warnings[0];
  cur.context["mlbench"]["threads"] = 1;
  c = Compare(base, cur, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->warnings.empty());
}

TEST(GateCompareTest, EmptyBaselineMakesEverythingNew) {
  gate::Run cur = MakeRun({Reps("BM_A", 1000, 9), Reps("BM_B", 1000, 9)});
  absl::StatusOr<Comparison> c = Compare(gate::Run{}, cur, Defaults());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Count(CaseStatus::kNew), 2);
}

TEST(GateCompareTest, BadOptionsAndMetrics) {
  CompareOptions o = Defaults();
  o.threshold = -0.1;
  EXPECT_FALSE(Compare(gate::Run{}, gate::Run{}, o).ok());
  o = Defaults();
  o.alpha = 0;
  EXPECT_FALSE(ValidateOptions(o).ok());
  o = Defaults();
  o.noise_floor = -1;
  EXPECT_FALSE(ValidateOptions(o).ok());
  EXPECT_FALSE(ParseMetric("real_time:higher").ok());
  EXPECT_FALSE(ParseMetric("x:sideways").ok());
  EXPECT_FALSE(ParseMetric(":lower").ok());
  EXPECT_TRUE(ParseMetric("cpu_time").ok());
}

TEST(GateCompareTest, UnknownTimeUnitIsAnError) {
  gate::Run base = MakeRun({Reps("BM_A", 1000, 9)});
  gate::Run cur = MakeRun({Reps("BM_A", 1000, 9, {{"time_unit", "fortnights"}})});
  absl::StatusOr<Comparison> c = Compare(base, cur, Defaults());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("fortnights"), std::string::npos);
}

TEST(GateRunTest, RejectsWrongShapesNamingTheEntry) {
  EXPECT_FALSE(ParseRun(json::array(), "a.json").ok());
  EXPECT_FALSE(ParseRun(json{{"context", json::object()}}, "a.json").ok());
  json j = {{"benchmarks", json::array({Entry("BM_A", 1, 0), Entry("BM_A", 1, 1)})}};
  j["benchmarks"][1]["real_time"] = "fast";
  absl::StatusOr<gate::Run> r = ParseRun(j, "a.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'a.json': benchmarks[1].real_time is a string"), std::string::npos)
      << r.status();
  // Aggregates are skipped.
  json agg = {{"benchmarks",
               json::array({Entry("BM_A", 1, 0), {{"name", "BM_A_median"}, {"run_type", "aggregate"}}})}};
  r = ParseRun(agg, "b.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cases.size(), 1u);
}

}  // namespace
}  // namespace gate

// A disturbed repetition (MFU above 100%, or peak probes apart: accounting/disturbed.h) makes
// the case UNVERIFIED with the reason from its label, never compared, never a baseline.
namespace gate {
namespace {

TEST(GateCompareTest, DisturbedIsUnverifiedWithItsReason) {
  std::vector<json> quiet = Reps("BM_GptStep/test-tiny", 1000, 9, {{"disturbed", 0.0}});
  EXPECT_FALSE(UnverifiedReason(quiet, true).has_value());
  EXPECT_FALSE(DisturbedReason(quiet[0]).has_value());
  std::vector<json> cur = quiet;
  cur[4]["disturbed"] = 1.0;
  cur[4]["label"] = "DISTURBED: MFU 140.18% > 100%: 2.29e+11 FLOP/s achieved above the ceiling 1.634e+11 FLOP/s"
                    " || test-tiny full attention; peak: measured at start-up";
  std::optional<std::string> why = UnverifiedReason(cur, true);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->rfind("DISTURBED: MFU 140.18% > 100%", 0), 0u) << *why;
  EXPECT_EQ(why->find("test-tiny full attention"), std::string::npos) << *why;  // the label's rest
  // Without a reason in the label, still disturbed.
  cur[4].erase("label");
  EXPECT_NE(UnverifiedReason(cur, true)->find("its label gives no reason"), std::string::npos);

  absl::StatusOr<Comparison> c = Compare(MakeRun({quiet}), MakeRun({cur}), Defaults());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Find(*c, "BM_GptStep/test-tiny").status, CaseStatus::kUnverified);
  EXPECT_NE(Find(*c, "BM_GptStep/test-tiny").note.find("DISTURBED"), std::string::npos);
  EXPECT_EQ(c->compared, 0);
}

}  // namespace
}  // namespace gate
