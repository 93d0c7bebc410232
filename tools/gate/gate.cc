// //tools:gate: compares a benchmark run (from //tools:bench) with the stored baseline of the
// same machine key and suite, case by case, or with the base side of an A/B run made by
// `tools/bench --against=REV`, round by round, and fails when a case regressed.
//
//   bazel run //tools:gate -- --current=FILE [--baseline_dir=tools/gate/baselines] [--update]
//                             [--threshold=0.05] [--metric=real_time] [--calibration=...]
//   bazel run //tools:gate -- --current=FILE --against=FILE.base.json     (A/B, paired)
//
// Statuses, statistics, verification and calibration: gate_compare.h. Machine keys:
// gate_key.h (a baseline of another key is refused, never compared). Baseline files and
// --update: gate_baseline.h.
// Exit status (harness/exit_codes.h): 0 passed; 1 command line not understood (Abseil:
// unknown flag, unparsable value); 2 bad input or broken measurement (unreadable or malformed
// JSON, a value out of range, an UNVERIFIED case (failed its output check, errored, or
// DISTURBED: counter disturbed=1, its reason printed), a run without results, a metric no case
// has, non-finite or non-positive times, a missing baseline folder, another machine's
// baseline, nothing compared, --update not getting the baseline folder's lock within
// --lock_timeout_s); 3 a case REGRESSED; 4 no baseline for this machine key (nothing
// compared; the message lists the baselines there are and how their keys differ).
#include <sys/stat.h>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/folder_lock.h"
#include "harness/user_path.h"
#include "sysinfo/utc_now.h"
#include "tools/gate/gate_baseline.h"
#include "tools/gate/gate_compare.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_report.h"
#include "tools/gate/gate_run.h"

ABSL_FLAG(std::string, current, "", "the run to judge: JSON from //tools:bench (required)");
ABSL_FLAG(std::string, baseline_dir, "tools/gate/baselines",
          "folder of baseline files (relative: to the workspace root)");
ABSL_FLAG(std::string, baseline, "", "a baseline file to use instead of <baseline_dir>/<key file>");
ABSL_FLAG(bool, update, false, "record the current run as this machine's baseline (merging by case)");
ABSL_FLAG(double, lock_timeout_s, 600,
          "with --update: how long to wait for another update of the same baseline folder to finish "
          "(the folder's .lock), in seconds, before giving up (exit 2)");
ABSL_FLAG(int, pool, 1,
          "with --update: keep this many recordings per case, pooled (1: the current run replaces the case)");
ABSL_FLAG(double, threshold, 0.05, "minimum relative change of the medians to call a case changed");
ABSL_FLAG(double, noise_floor, 1.0,
          "raise a case's minimum effect to this many times its baseline IQR / median (0: off)");
ABSL_FLAG(double, alpha, 0.05, "one-sided Mann-Whitney U significance level");
ABSL_FLAG(std::string, metric, "real_time",
          "real_time, cpu_time, or a counter (higher is better; NAME:lower to invert)");
ABSL_FLAG(
    std::string, calibration, "BM_Calibration/cpu/fma",
    "name prefix of the calibration case whose time ratio (now / baseline) is reported; 'none' for none");
ABSL_FLAG(bool, normalize, false,
          "divide current values by the calibration ratio (off by default: measured to add false alarms "
          "on the shared 2-core machine; see gate_compare.h)");
ABSL_FLAG(bool, holm, true,
          "Holm-adjust the p-values over the compared cases (family-wise false-alarm rate <= alpha)");
ABSL_FLAG(bool, require_verified, true, "treat a case without a 'verified' counter as UNVERIFIED");
ABSL_FLAG(std::string, suite, "", "baseline suite (default: the one tools/bench recorded)");
ABSL_FLAG(std::string, summary, "", "markdown summary file (default: <current>.gate.md)");
ABSL_FLAG(std::string, ab_test, "rank_sum",
          "the test of an A/B run: rank_sum (Mann-Whitney U over the two sides' rounds) or "
          "signed_rank (Wilcoxon on the per-round ratios); see tools/gate/baselines/README.md");
ABSL_FLAG(std::string, against, "",
          "the base side of an A/B run (tools/bench --against=REV writes it beside --out as "
          "<out>.base.json): compare round by round with it instead of a stored baseline");

namespace {

int BadInput(const absl::Status& s) { return harness::Fail("gate", s); }

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Fails when no compared or new case has the metric (a typo'd counter name compares nothing).
absl::Status RequireMetric(const gate::Comparison& cmp, const gate::Run& current,
                           const gate::Metric& metric) {
  for (const gate::CaseResult& c : cmp.cases) {
    if (c.status != gate::CaseStatus::kUnverified && c.status != gate::CaseStatus::kSkipped &&
        c.status != gate::CaseStatus::kMissing) {
      return absl::OkStatus();
    }
  }
  if (cmp.not_compared.empty()) return absl::OkStatus();
  std::set<std::string> have = {"real_time", "cpu_time"};
  for (const std::string& name : current.order) {
    for (const auto& [k, v] : current.cases.at(name)[0].items()) {
      if (v.is_number() && k != "repetition_index" && k != "repetitions" && k != "iterations" &&
          k != "threads" && k.rfind("mlbench_", 0) != 0 && k != "family_index" &&
          k != "per_family_instance_index" && k != "run_type") {
        have.insert(k);
      }
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no case has the metric '", metric.name,
                   "'; nothing was compared. The cases have: ", absl::StrJoin(have, ", ")));
}

// A/B: the base run, which must come from the same machine key.
absl::StatusOr<gate::Run> LoadAgainst(const std::string& path, const gate::MachineKey& key) {
  absl::StatusOr<gate::Run> base = gate::LoadRun(path);
  if (!base.ok()) return base.status();
  if (absl::Status s = gate::RequireResults(*base); !s.ok()) return s;
  absl::StatusOr<gate::MachineKey> base_key = gate::KeyFromContext(base->context, path);
  if (!base_key.ok()) return base_key.status();
  if (!(*base_key == key)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' was measured on another machine key than the current run; an A/B comparison "
                     "needs both sides from one machine. The fields that differ:\n  ",
                     absl::StrJoin(gate::KeyDifferences(*base_key, key), "\n  ")));
  }
  return base;
}

using gate::ShellQuote;

// The //tools:bench command that re-measures a run like `current`, from what bench recorded in
// context.mlbench; empty when the run was not made by bench.
std::string BenchCommand(const nlohmann::json& context) {
  if (!context.contains("mlbench") || !context["mlbench"].is_object()) return "";
  const nlohmann::json& m = context["mlbench"];
  const std::string suite = gate::ValueOr<std::string>(m, "suite", "");
  const std::string filter = gate::ValueOr<std::string>(m, "filter", "");
  const int reps = gate::ValueOr<int>(m, "repetitions", 1);
  const double min_time = gate::ValueOr<double>(m, "min_time", 0.0);
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

namespace {

absl::StatusOr<gate::CompareOptions> OptionsFromFlags() {
  gate::CompareOptions options;
  absl::StatusOr<gate::Metric> metric = gate::ParseMetric(absl::GetFlag(FLAGS_metric));
  if (!metric.ok()) return metric.status();
  options.metric = *metric;
  options.threshold = absl::GetFlag(FLAGS_threshold);
  options.alpha = absl::GetFlag(FLAGS_alpha);
  options.noise_floor = absl::GetFlag(FLAGS_noise_floor);
  options.require_verified = absl::GetFlag(FLAGS_require_verified);
  options.calibration = absl::GetFlag(FLAGS_calibration);
  if (options.calibration == "none") options.calibration.clear();
  options.normalize = absl::GetFlag(FLAGS_normalize);
  options.holm = absl::GetFlag(FLAGS_holm);
  options.paired = !absl::GetFlag(FLAGS_against).empty();
  const std::string ab_test = absl::GetFlag(FLAGS_ab_test);
  if (ab_test == "rank_sum") {
    options.paired_test = gate::CompareOptions::PairedTest::kRankSum;
  } else if (ab_test == "signed_rank") {
    options.paired_test = gate::CompareOptions::PairedTest::kSignedRank;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("--ab_test=", ab_test, " is not rank_sum or signed_rank"));
  }
  if (absl::Status s = gate::ValidateOptions(options); !s.ok()) return s;
  const int pool = absl::GetFlag(FLAGS_pool);
  if (pool < 1 || pool > 20) {
    return absl::InvalidArgumentError(absl::StrCat("--pool=", pool, " is out of range; allowed: 1 to 20"));
  }
  if (const double t = absl::GetFlag(FLAGS_lock_timeout_s); !(t > 0 && t <= 86400)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--lock_timeout_s=", t, " is out of range; allowed: > 0 to 86400 seconds"));
  }
  if (options.paired && absl::GetFlag(FLAGS_update)) {
    return absl::InvalidArgumentError(
        "--update records a stored baseline; it cannot be used with --against (an A/B run)");
  }
  return options;
}

// The command that records `current_path` as the baseline, with the flags that shaped it.
std::string UpdateCommand(const std::string& current_path, const std::string& baseline_path,
                          const std::string& suite, const gate::Run& baseline,
                          const gate::CompareOptions& options) {
  std::string update = absl::StrCat("bazel run //tools:gate -- --current=", ShellQuote(current_path));
  if (!absl::GetFlag(FLAGS_baseline).empty())
    absl::StrAppend(&update, " --baseline=", ShellQuote(baseline_path));
  const std::string baseline_dir = absl::GetFlag(FLAGS_baseline_dir);
  if (baseline_dir != "tools/gate/baselines")
    absl::StrAppend(&update, " --baseline_dir=", ShellQuote(baseline_dir));
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
  return update;
}

gate::ReportHeader MakeHeader(const gate::MachineKey& key, const std::string& suite,
                              const std::string& baseline_path, bool baseline_exists,
                              const gate::CompareOptions& options) {
  gate::ReportHeader header;
  header.key = key.Describe();
  header.suite = suite;
  header.baseline_path = baseline_path;
  header.baseline_exists = baseline_exists;
  header.metric = options.metric.is_time() ? options.metric.name
                                           : absl::StrCat(options.metric.name, options.metric.higher_is_better
                                                                                   ? " (higher is better)"
                                                                                   : " (lower is better)");
  header.threshold = options.threshold;
  header.alpha = options.alpha;
  header.noise_floor = options.noise_floor;
  header.holm = options.holm;
  header.paired = options.paired;
  header.paired_test = options.paired_test == gate::CompareOptions::PairedTest::kSignedRank
                           ? "Wilcoxon signed-rank over the per-round ratios of paired A/B rounds"
                           : "Mann-Whitney U over interleaved A/B rounds (change: median per-round ratio)";
  return header;
}

// The markdown summary (--summary, default <current>.gate.md); a failed write (a full disk) is an
// error, exit 2, like every output of the project (harness/atomic_file.h).
absl::Status WriteSummary(const std::string& current_path, const gate::ReportHeader& header,
                          const gate::Comparison& cmp, bool is_time) {
  std::string summary = absl::GetFlag(FLAGS_summary);
  summary = summary.empty() ? (absl::EndsWith(current_path, ".json")
                                   ? current_path.substr(0, current_path.size() - 5) + ".gate.md"
                                   : current_path + ".gate.md")
                            : harness::UserPath(summary);
  if (absl::Status s = gate::WriteFileAtomically(summary, gate::FormatMarkdown(header, cmp, is_time));
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("--summary: ", s.message()));
  }
  std::printf("gate: summary written to %s\n", summary.c_str());
  return absl::OkStatus();
}

// The exit status once the table is out: broken measurements first, then regressions.
int Verdict(const gate::Comparison& cmp, const gate::ReportHeader& header) {
  if (int n = cmp.Count(gate::CaseStatus::kUnverified); n > 0) {
    for (const gate::CaseResult& c : cmp.cases) {
      if (c.status == gate::CaseStatus::kUnverified)
        std::fprintf(stderr, "gate: UNVERIFIED %s: %s\n", c.name.c_str(), c.note.c_str());
    }
    std::fprintf(stderr,
                 "gate: error: %d case(s) UNVERIFIED: they failed their output check, errored, or were "
                 "DISTURBED (a rate above its ceiling, or peak probes that differ), so their times are not "
                 "results and nothing about them can pass (see the notes above)\n",
                 n);
    return harness::kExitFailure;
  }
  if (cmp.compared == 0) {
    std::fprintf(stderr, "gate: error: no case is in both runs with a result; nothing was compared (%s)\n",
                 header.baseline_path.c_str());
    return harness::kExitFailure;
  }
  const int regressed = cmp.Count(gate::CaseStatus::kRegressed);
  if (regressed > 0) {
    std::printf("gate: FAILED: %d case(s) REGRESSED against %s.\n", regressed, header.baseline_path.c_str());
    if (!header.paired) {
      std::printf("If the slowdown is intended, accept the new numbers with:\n  %s\n",
                  header.update_command.c_str());
      if (!header.remeasure_command.empty()) {
        std::printf("or, measuring afresh on this machine:\n  %s\n", header.remeasure_command.c_str());
      }
    }
    return harness::kExitRegression;
  }
  std::printf("gate: passed (%d case(s) compared, none regressed, against %s)\n", cmp.compared,
              header.baseline_path.c_str());
  return harness::kExitOk;
}

int NoBaseline(const gate::MachineKey& key, const std::string& suite, const std::string& baseline_dir,
               const gate::ReportHeader& header) {
  std::printf("gate: NO BASELINE for machine key '%s' (suite '%s'); expected %s. Nothing was compared.\n",
              key.Describe().c_str(), suite.c_str(), header.baseline_path.c_str());
  std::vector<std::string> others = gate::OtherMachinesBaselines(baseline_dir, suite, key);
  if (!others.empty()) {
    std::printf("gate: the baselines of suite '%s' there are for other machines; how their keys differ:\n",
                suite.c_str());
    for (const std::string& o : others) std::printf("  %s\n", o.c_str());
  }
  std::printf("gate: gate A/B instead (tools/bench --against=REV), or record a baseline:\n  %s\n",
              header.update_command.c_str());
  if (!header.remeasure_command.empty()) {
    std::printf("or, measuring afresh on this machine:\n  %s\n", header.remeasure_command.c_str());
  }
  return harness::kExitNoBaseline;
}

}  // namespace

// --update: the lock of the folder the baseline file is in (--baseline_dir: created if
// missing), held until the process exits, so that the read, the merge and the write of the
// file are one step that a concurrent update of the folder waits for (harness/folder_lock.h).
// None when --baseline names a file in a folder that does not exist (reading it fails anyway).
absl::StatusOr<std::optional<harness::FolderLock>> LockBaselineFolder(const std::string& baseline_dir) {
  std::string folder = baseline_dir;
  if (const std::string file = absl::GetFlag(FLAGS_baseline); !file.empty()) {
    const std::string path = harness::UserPath(file);
    const size_t slash = path.rfind('/');  // UserPath is absolute
    folder = slash == 0 ? "/" : path.substr(0, slash);
    if (!IsDirectory(folder)) return std::nullopt;
  } else if (absl::Status s = gate::MakeBaselineFolder(folder); !s.ok()) {
    return s;
  }
  absl::StatusOr<harness::FolderLock> lock =
      harness::FolderLock::Acquire(folder, "gate", absl::GetFlag(FLAGS_lock_timeout_s));
  if (!lock.ok()) return lock.status();
  return std::optional<harness::FolderLock>(*std::move(lock));
}

// The stored baseline for `key` (--baseline, else its file in baseline_dir): true and *baseline
// when there is one, false when there is none yet, an error when it cannot be used.
absl::StatusOr<bool> LoadStoredBaseline(const std::string& baseline_dir, const gate::MachineKey& key,
                                        const std::string& suite, std::string* baseline_path,
                                        gate::Run* baseline) {
  *baseline_path = absl::GetFlag(FLAGS_baseline);
  if (baseline_path->empty()) {
    if (!IsDirectory(baseline_dir) && !absl::GetFlag(FLAGS_update)) {
      return absl::NotFoundError(absl::StrCat("the baseline folder '", baseline_dir,
                                              "' does not exist (a typo in --baseline_dir? "
                                              "--update creates it and records a first baseline)"));
    }
    *baseline_path = absl::StrCat(baseline_dir, "/", key.FileName(suite));
  } else {
    *baseline_path = harness::UserPath(*baseline_path);
  }
  absl::StatusOr<nlohmann::json> bj = gate::ReadJsonFile(*baseline_path);
  if (bj.ok()) {
    if (absl::Status s = gate::ValidateBaseline(*bj, key, *baseline_path); !s.ok()) return s;
    absl::StatusOr<gate::Run> b = gate::ParseRun(*bj, *baseline_path);
    if (!b.ok()) return b.status();
    *baseline = *std::move(b);
    return true;
  }
  if (!absl::IsNotFound(bj.status()) || !absl::GetFlag(FLAGS_baseline).empty()) return bj.status();
  return false;
}

int main(int argc, char** argv) {
  std::vector<char*> rest = harness::ParseFlagsOrExit(
      argc, argv,
      absl::StrCat(
          "gate: judges a benchmark run (JSON from //tools:bench) against this machine's stored baseline,\n"
          "or the two sides of an A/B run, and fails on a regression.\n\n"
          "Usage: bazel run //tools:gate -- --current=FILE [--baseline_dir=tools/gate/baselines] [--update] "
          "[--threshold=0.05] [--metric=real_time] | --current=FILE --against=FILE.base.json\n"
          "Example: bazel run //tools:gate -- --current=run.json\n"
          "A case is UNVERIFIED (exit 2, the reason printed) when a repetition failed its output check\n"
          "(verified != 1), errored, or is DISTURBED (counter disturbed=1: MFU/HFU or a rate above the\n"
          "ceiling it is divided by, or the peak probed before and after the run differing by > 10%;\n"
          "the reason is the start of its label). Such a case is never gated on nor stored by --update.\n"
          "--update locks the baseline folder (its .lock file) while it reads, merges and writes the\n"
          "baseline: a second update of the folder waits (saying so) up to --lock_timeout_s, then exits 2.\n"
          "Relative paths (--current, --against, --baseline, --summary) are relative to the folder bazel "
          "run\n"
          "was started from; --baseline_dir to the repository.\n",
          harness::kExitCodesHelp));
  if (rest.size() > 1) {
    return BadInput(absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", rest[1], "' (flags are --name=value; see --help)")));
  }
  if (absl::GetFlag(FLAGS_current).empty()) {
    return BadInput(
        absl::InvalidArgumentError("--current=FILE is required (the JSON written by //tools:bench)"));
  }
  absl::StatusOr<gate::CompareOptions> options = OptionsFromFlags();
  if (!options.ok()) return BadInput(options.status());

  const std::string current_path = harness::UserPath(absl::GetFlag(FLAGS_current));
  std::fprintf(stderr, "gate: --current: reading %s\n", current_path.c_str());
  absl::StatusOr<gate::Run> current = gate::LoadRun(current_path);
  if (!current.ok()) return BadInput(current.status());
  if (absl::Status s = gate::RequireResults(*current); !s.ok()) return BadInput(s);
  absl::StatusOr<gate::MachineKey> key = gate::KeyFromContext(current->context, current_path);
  if (!key.ok()) return BadInput(key.status());
  std::string suite = absl::GetFlag(FLAGS_suite);
  if (suite.empty()) suite = gate::SuiteFromContext(current->context);

  const std::string baseline_dir = gate::WorkspacePath(absl::GetFlag(FLAGS_baseline_dir));
  std::string baseline_path;
  gate::Run baseline;
  bool baseline_exists = false;
  std::optional<harness::FolderLock> baseline_lock;  // --update: held until exit
  if (options->paired) {
    baseline_path = harness::UserPath(absl::GetFlag(FLAGS_against));
    absl::StatusOr<gate::Run> base = LoadAgainst(baseline_path, *key);
    if (!base.ok()) return BadInput(base.status());
    baseline = *std::move(base);
    baseline_exists = true;
  } else {
    if (absl::GetFlag(FLAGS_update)) {
      absl::StatusOr<std::optional<harness::FolderLock>> lock = LockBaselineFolder(baseline_dir);
      if (!lock.ok()) return BadInput(lock.status());
      baseline_lock = *std::move(lock);
    }
    absl::StatusOr<bool> found = LoadStoredBaseline(baseline_dir, *key, suite, &baseline_path, &baseline);
    if (!found.ok()) return BadInput(found.status());
    baseline_exists = *found;
  }

  absl::StatusOr<gate::Comparison> cmp = gate::Compare(baseline, *current, *options);
  if (!cmp.ok()) return BadInput(cmp.status());
  if (absl::Status s = RequireMetric(*cmp, *current, options->metric); !s.ok()) return BadInput(s);

  gate::ReportHeader header = MakeHeader(*key, suite, baseline_path, baseline_exists, *options);
  header.update_command = UpdateCommand(current_path, baseline_path, suite, baseline, *options);
  // In CI the run file is gone after the job: also say how to re-measure and record.
  if (std::string bench = BenchCommand(current->context); !bench.empty() && !options->paired) {
    std::string u = header.update_command;
    absl::StrReplaceAll(
        {{absl::StrCat("--current=", ShellQuote(current_path)), "--current=/tmp/mlbench_run.json"}}, &u);
    header.remeasure_command = absl::StrCat(bench, " && \\\n    ", u);
  }
  const bool is_time = options->metric.is_time();
  std::fputs(gate::FormatTable(header, *cmp, is_time).c_str(), stdout);
  if (absl::Status s = WriteSummary(current_path, header, *cmp, is_time); !s.ok()) return BadInput(s);

  if (absl::GetFlag(FLAGS_update)) {
    if (cmp->Count(gate::CaseStatus::kUnverified) > 0)
      return Verdict(*cmp, header);  // never record a broken run
    absl::StatusOr<gate::UpdateStats> st =
        gate::UpdateBaselineFile(baseline_path, *current, *key, suite, options->require_verified,
                                 sysinfo::UtcNow(), absl::GetFlag(FLAGS_pool));
    if (!st.ok()) return BadInput(st.status());
    std::printf(
        "gate: baseline %s %s: %d case(s) recorded (up to %d recording(s) pooled per case), "
        "%d kept from before, %d unverified not stored\n",
        baseline_path.c_str(), baseline_exists ? "updated" : "created", st->updated_cases, st->max_recordings,
        st->kept_cases, st->skipped_unverified);
    return harness::kExitOk;
  }
  if (cmp->Count(gate::CaseStatus::kUnverified) > 0) return Verdict(*cmp, header);
  if (!baseline_exists) return NoBaseline(*key, suite, baseline_dir, header);
  return Verdict(*cmp, header);
}
