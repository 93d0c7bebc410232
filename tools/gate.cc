// //tools:gate: compares a benchmark run (from //tools:bench) with the stored baseline of the
// same machine and suite, case by case, and fails when a case regressed.
//
//   bazel run //tools:gate -- --current=FILE [--baseline_dir=tools/baselines] [--update]
//                             [--threshold=0.05] [--metric=real_time] [--calibration=...]
//
// Statuses, statistics, verification and calibration: gate_compare.h. Baseline files and
// --update: gate_baseline.h and gate_key.h.
// Exit status: 1 when any case REGRESSED (without --update), 0 otherwise (also when this
// machine has no baseline: it says so), 2 on bad input (unreadable or malformed JSON names
// the file and the byte; bad flag values name the value and the allowed range).
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "tools/bench_context.h"
#include "tools/gate_baseline.h"
#include "tools/gate_compare.h"
#include "tools/gate_io.h"
#include "tools/gate_key.h"
#include "tools/gate_report.h"
#include "tools/gate_run.h"

ABSL_FLAG(std::string, current, "", "the run to judge: JSON from //tools:bench (required)");
ABSL_FLAG(std::string, baseline_dir, "tools/baselines",
          "folder of baseline files (relative: to the workspace root)");
ABSL_FLAG(std::string, baseline, "", "a baseline file to use instead of <baseline_dir>/<key file>");
ABSL_FLAG(bool, update, false, "record the current run as this machine's baseline (merging by case)");
ABSL_FLAG(int, pool, 1,
          "with --update: keep this many recordings per case, pooled (1: the current run replaces the case)");
ABSL_FLAG(double, threshold, 0.05, "minimum relative change of the medians to call a case changed");
ABSL_FLAG(double, noise_floor, 1.0,
          "raise a case's minimum effect to this many times its baseline IQR / median (0: off)");
ABSL_FLAG(double, alpha, 0.05, "one-sided Mann-Whitney U significance level");
ABSL_FLAG(std::string, metric, "real_time",
          "real_time, cpu_time, or a counter (higher is better; NAME:lower to invert)");
ABSL_FLAG(std::string, calibration, "BM_Calibration/cpu/fma",
          "name prefix of the calibration case whose time ratio (now / baseline) is reported; 'none' for none");
ABSL_FLAG(bool, normalize, false,
          "divide current values by the calibration ratio (off by default: measured to add false alarms "
          "on the shared 2-core machine; see gate_compare.h)");
ABSL_FLAG(bool, holm, true,
          "Holm-adjust the p-values over the compared cases (family-wise false-alarm rate <= alpha)");
ABSL_FLAG(bool, require_verified, true, "treat a case without a 'verified' counter as UNVERIFIED");
ABSL_FLAG(std::string, suite, "", "baseline suite (default: the one tools/bench recorded)");
ABSL_FLAG(std::string, summary, "", "markdown summary file (default: <current>.gate.md)");

namespace {

int BadInput(const absl::Status& s) {
  std::fprintf(stderr, "gate: %s\n", std::string(s.message()).c_str());
  return 2;
}

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) plain = plain && (isalnum(static_cast<unsigned char>(c)) || std::string("/._-=:+,").find(c) != std::string::npos);
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The //tools:bench command that re-measures a run like `current`, from what bench recorded in
// context.mlbench; empty when the run was not made by bench.
std::string BenchCommand(const nlohmann::json& context) {
  if (!context.contains("mlbench") || !context["mlbench"].is_object()) return "";
  const nlohmann::json& m = context["mlbench"];
  std::string suite = m.value("suite", "");
  std::string filter = m.value("filter", "");
  int reps = m.value("repetitions", 1);
  double min_time = m.value("min_time", 0.0);
  std::string cmd = "bazel run //tools:bench --";
  if (suite == "quick") {
    absl::StrAppend(&cmd, " --quick");
    if (min_time != 0.05) absl::StrAppend(&cmd, " --min_time=", min_time);
  } else {
    if (!filter.empty()) absl::StrAppend(&cmd, " --filter=", ShellQuote(filter));
    if (min_time > 0) absl::StrAppend(&cmd, " --min_time=", min_time);
    if (suite != "custom" && suite != "full") absl::StrAppend(&cmd, " --suite=", ShellQuote(suite));
  }
  absl::StrAppend(&cmd, " --repetitions=", std::max(reps, 9), " --out=/tmp/mlbench_run.json");
  return cmd;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "bazel run //tools:gate -- --current=FILE [--baseline_dir=tools/baselines] [--update] "
      "[--threshold=0.05] [--metric=real_time]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    return BadInput(absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", rest[1], "' (flags are --name=value; see --help)")));
  }
  if (absl::GetFlag(FLAGS_current).empty()) {
    return BadInput(absl::InvalidArgumentError("--current=FILE is required (the JSON written by //tools:bench)"));
  }
  gate::CompareOptions options;
  absl::StatusOr<gate::Metric> metric = gate::ParseMetric(absl::GetFlag(FLAGS_metric));
  if (!metric.ok()) return BadInput(metric.status());
  options.metric = *metric;
  options.threshold = absl::GetFlag(FLAGS_threshold);
  options.alpha = absl::GetFlag(FLAGS_alpha);
  options.noise_floor = absl::GetFlag(FLAGS_noise_floor);
  options.require_verified = absl::GetFlag(FLAGS_require_verified);
  options.calibration = absl::GetFlag(FLAGS_calibration);
  if (options.calibration == "none") options.calibration.clear();
  options.normalize = absl::GetFlag(FLAGS_normalize);
  options.holm = absl::GetFlag(FLAGS_holm);
  if (absl::Status s = gate::ValidateOptions(options); !s.ok()) return BadInput(s);

  const std::string current_path = gate::UserPath(absl::GetFlag(FLAGS_current));
  absl::StatusOr<gate::Run> current = gate::LoadRun(current_path);
  if (!current.ok()) return BadInput(current.status());
  std::vector<std::string> key_warnings;
  absl::StatusOr<gate::MachineKey> key = gate::KeyFromContext(current->context, &key_warnings);
  if (!key.ok()) return BadInput(absl::Status(key.status().code(), absl::StrCat("'", current_path, "': ", key.status().message())));
  std::string suite = absl::GetFlag(FLAGS_suite);
  if (suite.empty()) suite = gate::SuiteFromContext(current->context);

  const std::string baseline_dir = absl::GetFlag(FLAGS_baseline_dir);
  std::string baseline_path = absl::GetFlag(FLAGS_baseline);
  baseline_path = baseline_path.empty()
                      ? absl::StrCat(gate::WorkspacePath(baseline_dir), "/", key->FileName(suite))
                      : gate::UserPath(baseline_path);

  gate::Run baseline;
  bool baseline_exists = false;
  absl::StatusOr<nlohmann::json> bj = gate::ReadJsonFile(baseline_path);
  if (bj.ok()) {
    if (absl::Status s = gate::ValidateBaseline(*bj, *key, baseline_path); !s.ok()) return BadInput(s);
    absl::StatusOr<gate::Run> b = gate::ParseRun(*bj, baseline_path);
    if (!b.ok()) return BadInput(b.status());
    baseline = *std::move(b);
    baseline_exists = true;
  } else if (!absl::IsNotFound(bj.status())) {
    return BadInput(bj.status());
  }

  absl::StatusOr<gate::Comparison> cmp = gate::Compare(baseline, *current, options);
  if (!cmp.ok()) return BadInput(cmp.status());
  for (const std::string& w : key_warnings) cmp->warnings.push_back(w);

  gate::ReportHeader header;
  header.key = key->Describe();
  header.suite = suite;
  header.baseline_path = baseline_path;
  header.baseline_exists = baseline_exists;
  header.metric = options.metric.is_time()
                      ? options.metric.name
                      : absl::StrCat(options.metric.name, options.metric.higher_is_better ? " (higher is better)"
                                                                                            : " (lower is better)");
  header.threshold = options.threshold;
  header.alpha = options.alpha;
  header.noise_floor = options.noise_floor;
  header.holm = options.holm;
  std::string update = absl::StrCat("bazel run //tools:gate -- --current=", ShellQuote(current_path));
  if (!absl::GetFlag(FLAGS_baseline).empty()) absl::StrAppend(&update, " --baseline=", ShellQuote(baseline_path));
  if (baseline_dir != "tools/baselines") absl::StrAppend(&update, " --baseline_dir=", ShellQuote(baseline_dir));
  if (!absl::GetFlag(FLAGS_suite).empty()) absl::StrAppend(&update, " --suite=", ShellQuote(suite));
  if (!options.require_verified) absl::StrAppend(&update, " --require_verified=false");
  if (absl::GetFlag(FLAGS_calibration) != "BM_Calibration/cpu/fma") {
    absl::StrAppend(&update, " --calibration=", ShellQuote(absl::GetFlag(FLAGS_calibration)));
  }
  // A pooled baseline stays pooled: suggest --pool with the most recordings a case has.
  size_t pooled = 1;
  for (const auto& [name, entries] : baseline.cases) {
    std::set<std::string> recordings;
    for (const nlohmann::json& e : entries) {
      recordings.insert(e.value("mlbench_recorded", nlohmann::json::object()).dump());
    }
    pooled = std::max(pooled, recordings.size());
  }
  absl::StrAppend(&update, " --update");
  if (pooled > 1) absl::StrAppend(&update, " --pool=", pooled);
  header.update_command = update;
  // In CI the run file is gone after the job: also say how to re-measure and record.
  std::string remeasure;
  if (std::string bench = BenchCommand(current->context); !bench.empty()) {
    std::string u = update;
    absl::StrReplaceAll({{absl::StrCat("--current=", ShellQuote(current_path)), "--current=/tmp/mlbench_run.json"}}, &u);
    remeasure = absl::StrCat(bench, " && \\\n    ", u);
  }
  header.remeasure_command = remeasure;

  std::fputs(gate::FormatTable(header, *cmp, options.metric.is_time()).c_str(), stdout);
  std::string summary = absl::GetFlag(FLAGS_summary);
  summary = summary.empty() ? (absl::EndsWith(current_path, ".json")
                                   ? current_path.substr(0, current_path.size() - 5) + ".gate.md"
                                   : current_path + ".gate.md")
                            : gate::UserPath(summary);
  if (absl::Status s = gate::WriteFileAtomically(summary, gate::FormatMarkdown(header, *cmp, options.metric.is_time()));
      !s.ok()) {
    std::fprintf(stderr, "gate: warning: summary not written: %s\n", std::string(s.message()).c_str());
  } else {
    std::printf("gate: summary written to %s\n", summary.c_str());
  }

  const int regressed = cmp->Count(gate::CaseStatus::kRegressed);
  if (absl::GetFlag(FLAGS_update)) {
    const int pool = absl::GetFlag(FLAGS_pool);
    if (pool < 1 || pool > 20) {
      return BadInput(absl::InvalidArgumentError(absl::StrCat("--pool=", pool, " is out of range; allowed: 1 to 20")));
    }
    absl::StatusOr<gate::UpdateStats> st = gate::UpdateBaselineFile(
        baseline_path, *current, *key, suite, options.require_verified, bench::UtcNow(), pool);
    if (!st.ok()) return BadInput(st.status());
    std::printf("gate: baseline %s %s: %d case(s) recorded (up to %d recording(s) pooled per case), "
                "%d kept from before, %d unverified not stored\n",
                baseline_path.c_str(), baseline_exists ? "updated" : "created", st->updated_cases,
                st->max_recordings, st->kept_cases, st->skipped_unverified);
    return 0;
  }
  if (!baseline_exists) {
    std::printf("gate: no baseline exists for machine key '%s' (suite '%s'); expected %s. "
                "Nothing is gated: every case is NEW. To record one:\n  %s\n",
                key->Describe().c_str(), suite.c_str(), baseline_path.c_str(), update.c_str());
    if (!remeasure.empty()) std::printf("or, measuring afresh on this machine:\n  %s\n", remeasure.c_str());
    return 0;
  }
  if (regressed > 0) {
    std::printf("gate: FAILED: %d case(s) REGRESSED against %s.\n"
                "If the slowdown is intended, accept the new numbers with:\n  %s\n",
                regressed, baseline_path.c_str(), update.c_str());
    if (!remeasure.empty()) std::printf("or, measuring afresh on this machine:\n  %s\n", remeasure.c_str());
    return 1;
  }
  std::printf("gate: passed (no regression against %s)\n", baseline_path.c_str());
  return 0;
}
