// Per-case statuses with Mann-Whitney U, effect size and calibration; see gate_compare.h.
#include "tools/gate/gate_compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/disturbed.h"
#include "harness/skip.h"
#include "tools/gate/stats.h"

namespace gate {
namespace {

absl::StatusOr<double> UnitSeconds(const nlohmann::json& entry) {
  std::string unit = entry.value("time_unit", "ns");
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return absl::InvalidArgumentError(
      absl::StrCat("time_unit '", unit, "' of ", entry.value("name", "?"), " is not one of ns, us, ms, s"));
}

bool IsCalibration(const std::string& name) { return absl::StartsWith(name, kCalibrationPrefix); }

// First case of `run` whose name starts with `prefix`, or nullptr.
const std::vector<nlohmann::json>* FindCase(const Run& run, const std::string& prefix, std::string* name) {
  for (const std::string& n : run.order) {
    if (absl::StartsWith(n, prefix)) {
      *name = n;
      return &run.cases.at(n);
    }
  }
  return nullptr;
}

// Median contention while the run's binaries ran: the share of the CPU other processes used
// beyond the cores the benchmark left idle (tools/bench records it per entry as
// mlbench_contention; older runs have only mlbench_foreign_cpu). A warning above 15%.
void BusyWarning(const Run& run, const char* which, std::vector<std::string>* warnings) {
  std::vector<double> f;
  for (const auto& [name, entries] : run.cases) {
    for (const nlohmann::json& e : entries) {
      for (const char* key : {"mlbench_contention", "mlbench_foreign_cpu"}) {
        if (e.contains(key) && e[key].is_number()) {
          f.push_back(e[key].get<double>());
          break;
        }
      }
    }
  }
  if (f.empty()) return;
  double med = *stats::Median(f);
  if (med > 0.15) {
    warnings->push_back(absl::StrFormat(
        "the machine was busy during the %s run: other processes took a median %.0f%% of its CPU "
        "beyond the cores the benchmarks left idle (tools/bench retried the busiest rounds); "
        "changes may be noise",
        which, 100 * med));
  }
}

}  // namespace

const char* StatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::kRegressed: return "REGRESSED";
    case CaseStatus::kImproved: return "IMPROVED";
    case CaseStatus::kSame: return "SAME";
    case CaseStatus::kNew: return "NEW";
    case CaseStatus::kMissing: return "MISSING";
    case CaseStatus::kUnverified: return "UNVERIFIED";
    case CaseStatus::kSkipped: return "SKIPPED";
  }
  return "?";
}

int Comparison::Count(CaseStatus s) const {
  int n = 0;
  for (const CaseResult& c : cases) n += c.status == s;
  return n;
}

absl::StatusOr<Metric> ParseMetric(const std::string& text) {
  Metric m;
  std::string name = text;
  std::string dir;
  if (size_t colon = text.rfind(':'); colon != std::string::npos) {
    name = text.substr(0, colon);
    dir = text.substr(colon + 1);
  }
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--metric='", text, "': empty metric name"));
  }
  m.name = name;
  if (m.is_time()) {
    if (!dir.empty() && dir != "lower") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--metric='", text, "': ", name, " is a time, lower is better; only ':lower' may follow it"));
    }
    m.higher_is_better = false;
    return m;
  }
  if (dir.empty() || dir == "higher") {
    m.higher_is_better = true;
  } else if (dir == "lower") {
    m.higher_is_better = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--metric='", text, "': direction '", dir, "' is not 'higher' or 'lower'"));
  }
  return m;
}

absl::Status ValidateOptions(const CompareOptions& o) {
  if (!(o.threshold >= 0 && o.threshold < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("--threshold=", o.threshold,
                                                   " is out of range; allowed: 0 <= threshold < 1 "
                                                   "(a relative change of the medians, 0.05 = 5%)"));
  }
  if (!(o.noise_floor >= 0 && o.noise_floor <= 10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--noise_floor=", o.noise_floor, " is out of range; allowed: 0 (off) to 10"));
  }
  if (!(o.alpha > 0 && o.alpha <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--alpha=", o.alpha, " is out of range; allowed: 0 < alpha <= 0.5"));
  }
  return absl::OkStatus();
}

std::optional<std::string> SkipReason(const std::vector<nlohmann::json>& entries) {
  if (entries.empty()) return std::nullopt;
  for (const nlohmann::json& e : entries) {
    if (!e.value("error_occurred", false) || !harness::IsSkipMessage(e.value("error_message", ""))) {
      return std::nullopt;
    }
  }
  return entries[0].value("error_message", "").substr(sizeof(harness::kSkipPrefix) - 1);
}

std::optional<std::string> UnverifiedReason(const std::vector<nlohmann::json>& entries,
                                            bool require_verified) {
  for (const nlohmann::json& e : entries) {
    if (e.value("error_occurred", false)) {
      return absl::StrCat("error: ", e.value("error_message", "(no message)"));
    }
  }
  for (const nlohmann::json& e : entries) {
    if (!e.contains("verified")) {
      if (require_verified) return std::string("no 'verified' counter");
      continue;
    }
    const nlohmann::json& v = e["verified"];
    if (!v.is_number()) return std::string("'verified' is not a number");
    double x = v.get<double>();
    if (std::fabs(x - 1.0) > 1e-9) {
      return x == 0 ? std::string("output check failed (verified = 0)")
                    : absl::StrFormat("verified = %g, expected 1 (threaded cases: use kAvgThreads)", x);
    }
  }
  for (const nlohmann::json& e : entries) {
    if (std::optional<std::string> why = DisturbedReason(e)) return why;
  }
  return std::nullopt;
}

std::optional<std::string> DisturbedReason(const nlohmann::json& entry) {
  if (!entry.contains("disturbed")) return std::nullopt;
  const nlohmann::json& d = entry["disturbed"];
  if (!d.is_number()) return std::string("DISTURBED: 'disturbed' is not a number");
  if (d.get<double>() == 0) return std::nullopt;
  std::optional<std::string> reason;
  if (entry.contains("label") && entry["label"].is_string()) {
    reason = accounting::DisturbedReasonFromLabel(entry["label"].get<std::string>());
  }
  return absl::StrCat("DISTURBED: ", reason ? *reason : "disturbed = 1 (its label gives no reason)",
                      " (a rate above its ceiling, or peak probes that differ: not a result)");
}

absl::StatusOr<std::vector<double>> MetricSamples(const std::vector<nlohmann::json>& entries,
                                                  const Metric& metric) {
  std::vector<double> out;
  for (const nlohmann::json& e : entries) {
    if (!e.contains(metric.name) || !e[metric.name].is_number()) {
      return absl::NotFoundError(absl::StrCat(e.value("name", "?"), " has no numeric '", metric.name, "'"));
    }
    double v = e[metric.name].get<double>();
    if (metric.is_time()) {
      absl::StatusOr<double> unit = UnitSeconds(e);
      if (!unit.ok()) return unit.status();
      v *= *unit;
    }
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat(e.value("name", "?"), ": ", metric.name, " is not finite"));
    }
    out.push_back(v);
  }
  return out;
}

namespace {

// max(threshold, noise_floor x IQR / median) of the baseline's samples (unpaired runs only).
double MinEffect(const std::vector<double>& base, double median, const CompareOptions& options) {
  double m = options.threshold;
  if (!options.paired && options.noise_floor > 0 && median != 0 && base.size() >= 4) {
    double iqr = *stats::Quantile(base, 0.75) - *stats::Quantile(base, 0.25);
    m = std::max(m, options.noise_floor * iqr / std::fabs(median));
  }
  return m;
}

// Calibration factor s = median calibration time now / in the baseline (gate_compare.h).
absl::Status Calibrate(const Run& baseline, const Run& current, const CompareOptions& options,
                       Comparison* cmp) {
  if (options.calibration.empty()) return absl::OkStatus();
  std::string cur_name, base_name;
  const auto* cur_cal = FindCase(current, options.calibration, &cur_name);
  const auto* base_cal = FindCase(baseline, options.calibration, &base_name);
  if (cur_cal == nullptr || base_cal == nullptr || cur_name != base_name) {
    if (!baseline.cases.empty() && options.normalize) {
      cmp->warnings.push_back(
          absl::StrCat("calibration case '", options.calibration, "' is not in both runs; no normalisation"));
    }
    return absl::OkStatus();
  }
  if (UnverifiedReason(*cur_cal, false) || UnverifiedReason(*base_cal, false)) {
    if (options.normalize) {
      cmp->warnings.push_back(
          absl::StrCat("calibration case ", cur_name, " is unverified; no normalisation"));
    }
    return absl::OkStatus();
  }
  Metric time;  // real_time
  absl::StatusOr<std::vector<double>> c = MetricSamples(*cur_cal, time);
  absl::StatusOr<std::vector<double>> b = MetricSamples(*base_cal, time);
  if (!c.ok()) return c.status();
  if (!b.ok()) return b.status();
  double mc = *stats::Median(*c), mb = *stats::Median(*b);
  if (mc > 0 && mb > 0) {
    cmp->calibrated = true;
    cmp->normalized = options.normalize;
    cmp->calibration_case = cur_name;
    cmp->calibration_factor = mc / mb;
  }
  return absl::OkStatus();
}

// One-sided p-values of "worse" and "better" for one case.
struct Test {
  double worse_by = 0;  // relative change in the worse direction
  double p_worse = 1, p_better = 1;
  bool exact = false;
};

// Both one-sided p-values of a test: `worse` is larger values for a lower-is-better metric,
// smaller ones for a higher-is-better one; `change` is the relative change (current vs baseline).
// `test(alternative)` runs the test one way (a stats:: result with p_value and exact).
template <typename OneSided>
absl::StatusOr<Test> BothWays(const Metric& metric, double change, OneSided test) {
  Test t;
  t.worse_by = metric.higher_is_better ? -change : change;
  const stats::Alternative worse =
      metric.higher_is_better ? stats::Alternative::kLess : stats::Alternative::kGreater;
  const stats::Alternative better =
      metric.higher_is_better ? stats::Alternative::kGreater : stats::Alternative::kLess;
  auto pw = test(worse);
  if (!pw.ok()) return pw.status();
  auto pb = test(better);
  if (!pb.ok()) return pb.status();
  t.p_worse = pw->p_value;
  t.p_better = pb->p_value;
  t.exact = pw->exact;
  return t;
}

absl::StatusOr<Test> RankSumTest(const std::vector<double>& c, const std::vector<double>& b,
                                 const Metric& metric, double change) {
  return BothWays(metric, change, [&](stats::Alternative a) { return stats::MannWhitneyU(c, b, a); });
}

// Unpaired: Mann-Whitney U over the two runs' repetitions; change = ratio of the medians.
absl::StatusOr<Test> UnpairedTest(const std::vector<double>& c, const std::vector<double>& b,
                                  const Metric& metric, CaseResult* r) {
  r->change = r->baseline_median != 0 ? r->current_median / r->baseline_median - 1.0 : 0.0;
  return RankSumTest(c, b, metric, r->change);
}

// Paired (A/B rounds run side by side, matched by repetition_index): the change is the median
// per-round ratio - 1, so a drift of the machine between rounds cancels. The p-values come
// from the Wilcoxon signed-rank test on the per-round log ratios, or from Mann-Whitney U over
// the two sides' rounds (options.paired_test; gate_compare.h says which and why).
absl::StatusOr<Test> PairedTest(const std::vector<nlohmann::json>& cur_entries, const std::vector<double>& c,
                                const std::vector<nlohmann::json>& base_entries, const std::vector<double>& b,
                                const CompareOptions& options, CaseResult* r) {
  const Metric& metric = options.metric;
  std::map<int, double> base_by_round;
  for (size_t i = 0; i < base_entries.size(); ++i) {
    base_by_round[base_entries[i].value("repetition_index", static_cast<int>(i))] = b[i];
  }
  std::vector<double> d, cp, bp;
  for (size_t i = 0; i < cur_entries.size(); ++i) {
    auto it = base_by_round.find(cur_entries[i].value("repetition_index", static_cast<int>(i)));
    if (it == base_by_round.end()) continue;
    if (!(c[i] > 0 && it->second > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(r->name, ": a paired comparison needs positive values of '", metric.name, "'"));
    }
    d.push_back(std::log(c[i] / it->second));
    cp.push_back(c[i]);
    bp.push_back(it->second);
  }
  if (d.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(r->name, ": no round is in both runs (repetition_index)"));
  }
  r->n_current = r->n_baseline = static_cast<int>(d.size());
  r->change = std::exp(*stats::Median(d)) - 1.0;
  if (options.paired_test == CompareOptions::PairedTest::kRankSum)
    return RankSumTest(cp, bp, metric, r->change);
  return BothWays(metric, r->change, [&](stats::Alternative a) { return stats::WilcoxonSignedRank(d, a); });
}

struct Pending {
  size_t index;  // into cmp.cases
  Test test;
};

// REGRESSED / IMPROVED / SAME once every case's p is known. The gate fails when any case
// regressed, so with `holm` the p-values of each direction are adjusted over the compared
// cases: the chance that unchanged code raises any regression stays at or below alpha.
void Decide(const std::vector<Pending>& pending, const CompareOptions& options, Comparison* cmp) {
  std::vector<double> pw, pb;
  for (const Pending& q : pending) {
    pw.push_back(q.test.p_worse);
    pb.push_back(q.test.p_better);
  }
  if (options.holm) {
    pw = stats::HolmAdjust(pw);
    pb = stats::HolmAdjust(pb);
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    CaseResult& r = cmp->cases[pending[i].index];
    const double worse_by = pending[i].test.worse_by;
    r.p_raw = worse_by >= 0 ? pending[i].test.p_worse : pending[i].test.p_better;
    r.p_value = worse_by >= 0 ? pw[i] : pb[i];
    if (worse_by >= r.min_effect && pw[i] < options.alpha) {
      r.status = CaseStatus::kRegressed;
    } else if (-worse_by >= r.min_effect && pb[i] < options.alpha) {
      r.status = CaseStatus::kImproved;
    } else {
      r.status = CaseStatus::kSame;
    }
  }
  cmp->compared = static_cast<int>(pending.size());
}

void AddRunWarnings(const Run& baseline, const Run& current, const CompareOptions& options, bool few_reps,
                    Comparison* cmp) {
  // Runs made with different thread counts measure different things.
  auto threads = [](const Run& r) -> std::string {
    if (r.context.contains("mlbench") && r.context["mlbench"].is_object() &&
        r.context["mlbench"].contains("threads")) {
      return r.context["mlbench"]["threads"].dump();
    }
    return "unknown";
  };
  if (!baseline.cases.empty() && threads(baseline) != threads(current)) {
    cmp->warnings.push_back(absl::StrCat("the baseline was measured with threads = ", threads(baseline),
                                         ", this run with threads = ", threads(current),
                                         " (tools/bench --threads); the numbers are not comparable"));
  }
  BusyWarning(baseline, "baseline", &cmp->warnings);
  BusyWarning(current, "current", &cmp->warnings);
  if (few_reps) {
    cmp->warnings.push_back(
        absl::StrCat("fewer than ", kMinRepetitions,
                     " repetitions on a side: the test has little power "
                     "(3 vs 3 can never reach p < 0.05); run tools/bench with --repetitions=",
                     kMinRepetitions, " or more"));
  }
  if (!cmp->not_compared.empty()) {
    cmp->warnings.push_back(absl::StrCat(cmp->not_compared.size(), " case(s) have no '", options.metric.name,
                                         "' and were not compared"));
  }
}

// One case of the current run into cmp->cases: SKIPPED, UNVERIFIED, NEW, or compared (its
// test into `pending`, decided once every case's p is known); into cmp->not_compared when it
// lacks the metric.
absl::Status CompareCase(const std::string& name, const Run& baseline, const Run& current,
                         const CompareOptions& options, Comparison* cmp, std::vector<Pending>* pending,
                         bool* few_reps) {
  const Metric& metric = options.metric;
  const std::vector<nlohmann::json>& cur = current.cases.at(name);
  CaseResult r;
  r.name = name;
  r.n_current = static_cast<int>(cur.size());
  auto done = [&](CaseStatus status, std::string note) {
    r.status = status;
    r.note = std::move(note);
    cmp->cases.push_back(r);
    return absl::OkStatus();
  };
  if (std::optional<std::string> why = SkipReason(cur)) return done(CaseStatus::kSkipped, *why);
  if (std::optional<std::string> why = UnverifiedReason(cur, options.require_verified)) {
    return done(CaseStatus::kUnverified, *why);
  }
  absl::StatusOr<std::vector<double>> c = MetricSamples(cur, metric);
  if (absl::IsNotFound(c.status())) {
    cmp->not_compared.push_back(name);
    return absl::OkStatus();
  }
  if (!c.ok()) return c.status();
  if (cmp->normalized) {
    for (double& v : *c)
      v = metric.higher_is_better ? v * cmp->calibration_factor : v / cmp->calibration_factor;
  }
  r.current_median = *stats::Median(*c);

  auto base_it = baseline.cases.find(name);
  if (base_it == baseline.cases.end()) return done(CaseStatus::kNew, "");
  const std::vector<nlohmann::json>& base = base_it->second;
  r.n_baseline = static_cast<int>(base.size());
  if (UnverifiedReason(base, options.require_verified)) {
    return done(CaseStatus::kNew, "the baseline's entry is unverified");
  }
  absl::StatusOr<std::vector<double>> b = MetricSamples(base, metric);
  if (!b.ok()) return done(CaseStatus::kNew, absl::StrCat("the baseline has no '", metric.name, "'"));
  r.baseline_median = *stats::Median(*b);
  r.min_effect = MinEffect(*b, r.baseline_median, options);
  absl::StatusOr<Test> t =
      options.paired ? PairedTest(cur, *c, base, *b, options, &r) : UnpairedTest(*c, *b, metric, &r);
  if (!t.ok()) return t.status();
  r.exact = t->exact;
  pending->push_back({cmp->cases.size(), *t});
  std::string note;
  if (r.min_effect > options.threshold)
    note = absl::StrFormat("needs %.1f%% (baseline IQR)", 100 * r.min_effect);
  if (r.n_current < kMinRepetitions || r.n_baseline < kMinRepetitions) {
    *few_reps = true;
    absl::StrAppend(&note, note.empty() ? "" : "; ", "only ", r.n_baseline, " vs ", r.n_current,
                    options.paired ? " paired rounds" : " repetitions", " (want >= ", kMinRepetitions, ")");
  }
  return done(CaseStatus::kSame, note);  // SAME until Decide
}

// The baseline's cases the current run lacks: MISSING, with the baseline's median.
void AddMissingCases(const Run& baseline, const Run& current, const CompareOptions& options,
                     Comparison* cmp) {
  for (const std::string& name : baseline.order) {
    if (IsCalibration(name) || current.cases.count(name)) continue;
    CaseResult r;
    r.name = name;
    r.status = CaseStatus::kMissing;
    r.n_baseline = static_cast<int>(baseline.cases.at(name).size());
    if (absl::StatusOr<std::vector<double>> b = MetricSamples(baseline.cases.at(name), options.metric);
        b.ok()) {
      r.baseline_median = *stats::Median(*b);
      r.min_effect = MinEffect(*b, r.baseline_median, options);
    }
    cmp->cases.push_back(r);
  }
}

}  // namespace

absl::StatusOr<Comparison> Compare(const Run& baseline, const Run& current, const CompareOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  Comparison cmp;
  if (absl::Status s = Calibrate(baseline, current, options, &cmp); !s.ok()) return s;
  std::vector<Pending> pending;
  bool few_reps = false;
  for (const std::string& name : current.order) {
    if (IsCalibration(name)) continue;
    if (absl::Status s = CompareCase(name, baseline, current, options, &cmp, &pending, &few_reps); !s.ok())
      return s;
  }
  Decide(pending, options, &cmp);
  AddMissingCases(baseline, current, options, &cmp);
  AddRunWarnings(baseline, current, options, few_reps, &cmp);
  return cmp;
}

}  // namespace gate
