// //tools:bench: runs the repository's benchmark cases selected by a regex, in rounds, and
// merges their Google Benchmark JSON into one file with the machine's description.
//
//   bazel run //tools:bench -- [--filter=REGEX] [--list] [--out=FILE] [--repetitions=N] [--quick]
//
// The filter has Google Benchmark's semantics (regex on the full case name; a leading '-'
// negates it). --quick sets --benchmark_min_time=0.05, one thread per benchmark (--threads)
// and, without --filter, selects the quick CPU suite (QuickFilter() in bench_binaries.cc)
// that CI gates on. Every round also runs the
// calibration cases (//tools:bench_calibration) unless --calibration=false. The output is the
// input of //tools:gate.
//
// A/B: --against=REV builds REV's benchmark binaries in a git worktree (bench_ab.h) and runs
// them and the current ones in alternating rounds on this machine; --out gets the current
// side and <out>.base.json the base side, for `gate --current=OUT --against=OUT.base.json`.
//
// Never green on a broken measurement: a case that failed its output check or errored (other
// than a skip, harness/skip.h), or was DISTURBED (counter disturbed=1: a rate above its ceiling,
// or peak probes that differ; accounting/disturbed.h), in any round, fails the run and no JSON
// is written (tools/gate refuses the same cases as UNVERIFIED).
// Exit status (harness/exit_codes.h): 0 done; 1 command line not understood; 2 bad input, a
// binary that failed, or a case that failed its check.
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "accounting/disturbed.h"
#include "harness/cache_dir.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/skip.h"
#include "harness/user_path.h"
#include "sysinfo/cpu_info.h"
#include "tools/bench/bench_ab.h"
#include "tools/bench/bench_binaries.h"
#include "tools/bench/bench_context.h"
#include "tools/bench/bench_runner.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/stats.h"

ABSL_FLAG(std::string, filter, "",
          "regex on full case names (Google Benchmark semantics; leading '-' negates). "
          "Empty: every case, or the quick suite with --quick");
ABSL_FLAG(bool, list, false, "print the selected case names and exit without running them");
ABSL_FLAG(std::string, out, "bench.json", "merged JSON output (relative to where bazel was run)");
ABSL_FLAG(int, repetitions, 1, "rounds: every selected binary runs this many times in turn");
ABSL_FLAG(bool, quick, false, "short runs: --benchmark_min_time=0.05, and the quick suite when no --filter");
ABSL_FLAG(double, min_time, 0,
          "--benchmark_min_time in seconds (0: 0.05 with --quick, else the binary's default)");
ABSL_FLAG(std::string, suite, "",
          "suite name recorded for tools/gate's baseline file "
          "(default: 'quick' with --quick and no --filter, 'custom' with a filter, else 'full')");
ABSL_FLAG(int, threads, -1,
          "threads for the benchmarks (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MLBENCH_THREADS); "
          "0 leaves the environment as it is; default: 1 with --quick, else 0");
ABSL_FLAG(double, max_contention, 0.15,
          "retry a binary's run when other processes used more than this share of the machine's "
          "CPU beyond the cores the benchmarks leave idle");
ABSL_FLAG(int, retries, 2, "extra attempts per binary and round when the machine was busy");
ABSL_FLAG(bool, calibration, true, "also run //tools:bench_calibration in every round");
ABSL_FLAG(std::string, against, "",
          "A/B: a git revision (HEAD~1, a branch, a SHA) whose benchmark binaries run in alternating "
          "rounds with the current ones; the base side goes to <out>.base.json");
ABSL_FLAG(std::string, against_cache, "",
          "folder of the A/B worktrees, one per revision, reused (default $XDG_CACHE_HOME/mlbench/ab, else "
          "~/.cache/mlbench/ab; neither set: refused); created mode 0700, used only when ours");
ABSL_FLAG(std::string, against_runfiles, "",
          "A/B against binaries already built: a runfiles folder holding mlbench/<binary> (e.g. "
          "another checkout's bazel-bin/tools/bench/bench.runfiles); no checkout, no build");
ABSL_FLAG(std::string, against_bazel_args, "",
          "extra arguments for building the base revision (empty: --disk_cache=<the cache folder of "
          "--against_cache's default>/bazel-disk-cache, .bazelrc's disk cache, which an old revision's "
          ".bazelrc may not name)");
ABSL_FLAG(std::string, binaries, "",
          "comma-separated binaries (runfiles paths or files) to use instead of the known list; "
          "for tests and experiments");

namespace {

int Fail(const absl::Status& s) { return harness::Fail("bench", s); }

// Every entry that errored (other than a skip) or failed its output check, "name: why".
std::vector<std::string> BrokenEntries(const nlohmann::json& merged) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const nlohmann::json& b : merged["benchmarks"]) {
    const std::string name = b.value("name", "?");
    const std::string side = b.value("mlbench_side", "");
    std::string why;
    if (b.value("error_occurred", false)) {
      const std::string msg = b.value("error_message", "(no message)");
      if (!harness::IsSkipMessage(msg)) why = msg;
    } else if (b.contains("verified") && b["verified"].is_number() &&
               std::fabs(b["verified"].get<double>() - 1.0) > 1e-9) {
      why = absl::StrCat("output check failed (verified = ", b["verified"].get<double>(), ")");
    } else if (b.contains("disturbed") && (!b["disturbed"].is_number() || b["disturbed"].get<double>() != 0)) {
      // A rate above its ceiling, or peak probes that differ (accounting/disturbed.h): as
      // tools/gate's UnverifiedReason, the reason is the start of the label.
      std::optional<std::string> reason;
      if (b.contains("label") && b["label"].is_string())
        reason = accounting::DisturbedReasonFromLabel(b["label"].get<std::string>());
      why = absl::StrCat("DISTURBED: ", reason ? *reason : "disturbed = 1 (its label gives no reason)");
    }
    if (why.empty()) continue;
    std::string line = absl::StrCat(side.empty() ? "" : absl::StrCat("[", side, "] "), name, ": ", why);
    if (seen.insert(line).second) out.push_back(line);
  }
  return out;
}

// Splits an A/B merge into the current side's run and the base side's.
std::pair<nlohmann::json, nlohmann::json> SplitSides(nlohmann::json merged) {
  nlohmann::json current = {{"context", merged["context"]}, {"benchmarks", nlohmann::json::array()}};
  nlohmann::json base = {{"context", merged["base_context"]}, {"benchmarks", nlohmann::json::array()}};
  for (nlohmann::json& b : merged["benchmarks"]) {
    const bool is_base = b.value("mlbench_side", "") == "base";
    (is_base ? base : current)["benchmarks"].push_back(std::move(b));
  }
  return {std::move(current), std::move(base)};
}

std::string BaseFileName(const std::string& out) {
  return absl::EndsWith(out, ".json") ? out.substr(0, out.size() - 5) + ".base.json" : out + ".base.json";
}

// Median real time per case, with the spread across rounds, for a quick look.
void PrintSummary(const nlohmann::json& merged) {
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, std::string> units, errors;
  std::vector<std::string> order;
  for (const auto& b : merged["benchmarks"]) {
    std::string name = b.value("name", "?");
    if (!times.count(name) && !errors.count(name)) order.push_back(name);
    if (b.value("error_occurred", false)) {
      errors[name] = b.value("error_message", "error");
      continue;
    }
    times[name].push_back(b.value("real_time", 0.0));
    units[name] = b.value("time_unit", "ns");
  }
  std::printf("%-60s %5s %14s %8s\n", "case", "reps", "median real", "spread");
  for (const std::string& name : order) {
    if (errors.count(name)) {
      std::printf("%-60s %5s %s\n", name.c_str(), "-", ("skipped: " + errors[name]).c_str());
      continue;
    }
    const auto& v = times[name];
    double med = *stats::Median(v);
    double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    std::printf("%-60s %5zu %11.4g %-2s %7.1f%%\n", name.c_str(), v.size(), med, units[name].c_str(),
                med > 0 ? 100.0 * (hi - lo) / med : 0.0);
  }
}

}  // namespace

namespace {

struct Settings {
  std::string filter;
  bool quick_suite = false;
  int repetitions = 1;
  double min_time = 0;
  int threads = 0;
  std::string suite;
  bench::RunOptions options;
};

absl::StatusOr<Settings> ReadSettings() {
  Settings st;
  const bool quick = absl::GetFlag(FLAGS_quick);
  st.filter = absl::GetFlag(FLAGS_filter);
  st.quick_suite = quick && st.filter.empty();
  if (st.quick_suite) st.filter = bench::QuickFilter();
  st.repetitions = absl::GetFlag(FLAGS_repetitions);
  if (st.repetitions < 1 || st.repetitions > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repetitions=", st.repetitions, " is out of range; allowed: 1 to 1000"));
  }
  st.min_time = absl::GetFlag(FLAGS_min_time);
  if (!(st.min_time >= 0 && st.min_time <= 60)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--min_time=", st.min_time, " is out of range; allowed: 0 (default) to 60 seconds"));
  }
  if (st.min_time == 0 && quick) st.min_time = 0.05;
  st.threads = absl::GetFlag(FLAGS_threads);
  if (st.threads < 0) st.threads = quick ? 1 : 0;
  // At most the CPUs this process may run on (more would only share them); 1024 where unknown.
  const int cpus = sysinfo::AffinityCpuCount();
  const int max_threads = cpus > 0 ? cpus : 1024;
  if (st.threads > max_threads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--threads=", st.threads, " is out of range; allowed: 0 (as is) to ", max_threads,
        cpus > 0 ? absl::StrCat(", the ", cpus, " CPUs this process may run on (its affinity mask)") : ""));
  }
  st.suite = absl::GetFlag(FLAGS_suite);
  if (st.suite.empty()) st.suite = st.quick_suite ? "quick" : (st.filter.empty() ? "full" : "custom");
  st.options.repetitions = st.repetitions;
  st.options.min_time = st.min_time;
  st.options.max_contention = absl::GetFlag(FLAGS_max_contention);
  st.options.retries = absl::GetFlag(FLAGS_retries);
  if (!(st.options.max_contention > 0 && st.options.max_contention <= 1) || st.options.retries < 0 ||
      st.options.retries > 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_contention=", st.options.max_contention, " / --retries=", st.options.retries,
                     " out of range; allowed: 0 < max_contention <= 1, 0 <= retries <= 20"));
  }
  return st;
}

// Children inherit these. One thread is the quick suite's choice: on a small shared machine a
// 2-thread BLAS or OpenMP loop stalls at every barrier whenever anything else wants a core,
// while a single thread leaves the other core to the intruder.
void SetThreadEnvironment(int threads) {
  if (threads <= 0) return;
  const std::string n = std::to_string(threads);
  setenv("OMP_NUM_THREADS", n.c_str(), 1);
  setenv("OPENBLAS_NUM_THREADS", n.c_str(), 1);
  setenv("MLBENCH_THREADS", n.c_str(), 1);
}

// The current revision's targets: the calibration binary (unless listing or turned off) and
// every known (or --binaries) binary with the cases the filter selects in it.
absl::StatusOr<std::vector<bench::Target>> CurrentTargets(const Settings& st, const char* argv0,
                                                          size_t* selected) {
  std::vector<bench::BenchBinary> binaries;
  if (std::string list = absl::GetFlag(FLAGS_binaries); !list.empty()) {
    for (absl::string_view p : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      binaries.push_back({std::string(p), std::string(p), /*legacy_runfiles_path=*/""});
    }
  } else {
    binaries = bench::KnownBinaries();
  }
  std::vector<bench::Target> targets;
  if (absl::GetFlag(FLAGS_calibration) && !absl::GetFlag(FLAGS_list)) {
    bench::BenchBinary cal = bench::CalibrationBinary();
    absl::StatusOr<std::string> exe = bench::LocateBinary(cal.runfiles_path, argv0);
    if (!exe.ok()) return exe.status();
    absl::StatusOr<std::vector<std::string>> cases = bench::ListCases(*exe, "");
    if (!cases.ok()) return cases.status();
    targets.push_back({cal, *exe, "", *cases});
  }
  *selected = 0;
  for (const bench::BenchBinary& b : binaries) {
    absl::StatusOr<std::string> exe = bench::LocateBinary(b.runfiles_path, argv0);
    if (!exe.ok()) return exe.status();
    absl::StatusOr<std::vector<std::string>> cases = bench::ListCases(*exe, st.filter);
    if (!cases.ok()) return cases.status();
    *selected += cases->size();
    targets.push_back({b, *exe, st.filter, *cases});
  }
  return targets;
}

// A/B: the base revision's twin of every current target it has.
absl::StatusOr<bench::BaseRevision> AddBaseTargets(std::vector<bench::Target>* targets) {
  absl::StatusOr<bench::BaseRevision> base;
  if (std::string prebuilt = absl::GetFlag(FLAGS_against_runfiles); !prebuilt.empty()) {
    base = bench::BaseRevision{};
    base->rev = absl::StrCat("prebuilt binaries in ", prebuilt);
    base->sha = "unknown (prebuilt)";
    base->runfiles_root = harness::UserPath(prebuilt);
  } else {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    std::string cache = absl::GetFlag(FLAGS_against_cache);
    if (cache.empty()) {
      absl::StatusOr<std::string> dflt = bench::DefaultAbCacheDir();
      if (!dflt.ok()) return dflt.status();
      cache = *dflt;
    }
    cache = harness::UserPath(cache);
    // Ours, before anything else (harness/cache_dir.h): never build in a planted folder.
    if (absl::Status s = harness::MakeOwnPrivateDir(cache); !s.ok()) return s;
    std::string bazel_args = absl::GetFlag(FLAGS_against_bazel_args);
    if (bazel_args.empty()) {
      absl::StatusOr<std::string> disk = bench::DefaultAbDiskCache();
      if (!disk.ok()) return disk.status();
      bazel_args = absl::StrCat("--disk_cache=", gate::ShellQuote(*disk));
    }
    base =
        bench::PrepareBaseRevision(ws == nullptr ? "" : ws, absl::GetFlag(FLAGS_against), cache, bazel_args);
  }
  if (!base.ok()) return base.status();
  std::vector<bench::Target> twins;
  for (const bench::Target& t : *targets) {
    absl::StatusOr<std::string> exe = bench::LocateBaseBinary(*base, t.binary);
    if (!exe.ok()) {
      std::fprintf(stderr, "bench: warning: %s; its cases run on the current side only (NEW)\n",
                   std::string(exe.status().message()).c_str());
      continue;
    }
    absl::StatusOr<std::vector<std::string>> cases = bench::ListCases(*exe, t.filter);
    if (!cases.ok()) return cases.status();
    twins.push_back({t.binary, *exe, t.filter, *cases, bench::kBaseSide});
  }
  targets->insert(targets->end(), twins.begin(), twins.end());
  return base;
}

nlohmann::json RunDescription(const Settings& st, const std::vector<bench::Target>& targets) {
  nlohmann::json m = bench::MachineContext();
  m["suite"] = st.suite;
  m["filter"] = st.filter;
  m["repetitions"] = st.repetitions;
  m["min_time"] = st.min_time;
  m["calibration"] = absl::GetFlag(FLAGS_calibration);
  m["threads"] = st.threads;
  m["max_contention"] = st.options.max_contention;
  nlohmann::json labels = nlohmann::json::array();
  for (const bench::Target& t : targets) {
    if (t.side == bench::kCurrentSide) labels.push_back(t.binary.label);
  }
  m["binaries"] = labels;
  return m;
}

// Says what will run, and sets the CPU share other processes may use and the progress line.
void PlanRounds(size_t selected, bool ab, const std::optional<bench::BaseRevision>& base,
                Settings* settings) {
  Settings& st = *settings;
  std::fprintf(
      stderr, "bench: %zu case(s)%s, %d round(s)%s, min_time %s, threads %s, suite '%s'\n", selected,
      absl::GetFlag(FLAGS_calibration) ? " + calibration" : "", st.repetitions,
      ab ? absl::StrCat(" of A/B against ", base->rev, " (", base->sha.substr(0, 12), ")").c_str() : "",
      st.min_time > 0 ? absl::StrCat(st.min_time, " s").c_str() : "default",
      st.threads > 0 ? std::to_string(st.threads).c_str() : "as the environment says", st.suite.c_str());
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const long used = st.threads > 0 ? std::min<long>(st.threads, cpus) : cpus;
  st.options.idle_share = static_cast<double>(cpus - used) / cpus;
  const int repetitions = st.repetitions;
  st.options.progress = [repetitions, ab](int round, const bench::Target& t, double secs, double foreign,
                                          double contention, int attempts) {
    std::fprintf(stderr,
                 "bench: round %d/%d %s %-28s %3zu case(s) %6.1f s  others used %3.0f%% of the CPU "
                 "(contention %3.0f%%)%s\n",
                 round + 1, repetitions, ab ? (t.side == bench::kBaseSide ? "[base]   " : "[current]") : "",
                 t.binary.label.c_str(), t.cases.size(), secs, 100 * foreign, 100 * contention,
                 attempts > 1 ? absl::StrCat(" (", attempts, " attempts)").c_str() : "");
  };
}

// Writes the run (one file, or both sides of an A/B run) and prints its summary.
int WriteResults(const Settings& st, const std::vector<bench::Target>& targets, nlohmann::json merged,
                 const std::string& out, const std::optional<bench::BaseRevision>& base) {
  nlohmann::json m = RunDescription(st, targets);
  if (!base) {
    merged["context"]["mlbench"] = m;
    if (absl::Status s = gate::WriteFileAtomically(out, merged.dump(2) + "\n"); !s.ok()) return Fail(s);
    PrintSummary(merged);
    std::fprintf(stderr, "bench: wrote %s (%zu results; commit %s, %s build)\n", out.c_str(),
                 merged["benchmarks"].size(), m["commit"].get<std::string>().c_str(),
                 m["build_type"].get<std::string>().c_str());
    return harness::kExitOk;
  }
  auto [current, base_run] = SplitSides(std::move(merged));
  const std::string base_out = BaseFileName(out);
  m["ab"] = {{"against", base->rev},          {"base_commit", base->sha},
             {"current_commit", m["commit"]}, {"base_file", base_out},
             {"current_file", out},           {"base_build_seconds", base->build_seconds}};
  current["context"]["mlbench"] = m;
  nlohmann::json mb = m;
  mb["commit"] = base->sha;
  mb["run_context"]["build"]["commit"] = base->sha;  // the binaries' machine is the same; the code is REV's
  base_run["context"]["mlbench"] = mb;
  if (absl::Status s = gate::WriteFileAtomically(base_out, base_run.dump(2) + "\n"); !s.ok()) return Fail(s);
  if (absl::Status s = gate::WriteFileAtomically(out, current.dump(2) + "\n"); !s.ok()) return Fail(s);
  std::fprintf(stderr, "bench: current side (%s):\n", m["commit"].get<std::string>().c_str());
  PrintSummary(current);
  std::fprintf(stderr, "bench: base side (%s, %s):\n", base->rev.c_str(), base->sha.c_str());
  PrintSummary(base_run);
  std::fprintf(
      stderr,
      "bench: wrote %s and %s; compare them with\n  bazel run //tools:gate -- --current=%s --against=%s\n",
      out.c_str(), base_out.c_str(), out.c_str(), base_out.c_str());
  return harness::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = harness::ParseFlagsOrExit(
      argc, argv,
      absl::StrCat(
          "bench: runs the cases of every benchmark binary (or those --filter selects) in interleaved\n"
          "rounds and merges them into one JSON for //tools:gate.\n\n"
          "Usage: bazel run //tools:bench -- [--filter=REGEX] [--list] [--out=FILE] [--repetitions=N] "
          "[--quick] "
          "[--against=REV]\n"
          "Example: bazel run //tools:bench -- --quick --repetitions=9 --out=run.json\n"
          "A case that failed its output check, errored, or was DISTURBED (disturbed=1: a rate above its\n"
          "ceiling, or peak probes that differ) in any round fails the run (exit 2), nothing written.\n"
          "Relative paths (--out, --against_cache, --against_runfiles) are relative to the folder bazel run\n"
          "was started from.\n",
          harness::kExitCodesHelp));
  if (rest.size() > 1) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", rest[1], "' (flags are --name=value; see --help)")));
  }
  absl::StatusOr<Settings> settings = ReadSettings();
  if (!settings.ok()) return Fail(settings.status());
  Settings& st = *settings;
  SetThreadEnvironment(st.threads);
  const std::string out = harness::UserPath(absl::GetFlag(FLAGS_out));
  // Fail before the long run, not after it, when the result could not be written.
  if (!absl::GetFlag(FLAGS_list)) {
    if (absl::Status s = gate::CheckWritable(out); !s.ok()) return Fail(s);
  }

  size_t selected = 0;
  absl::StatusOr<std::vector<bench::Target>> targets = CurrentTargets(st, argv[0], &selected);
  if (!targets.ok()) return Fail(targets.status());
  if (absl::GetFlag(FLAGS_list)) {
    for (const bench::Target& t : *targets) {
      std::fprintf(stderr, "# %s: %zu case(s)\n", t.binary.label.c_str(), t.cases.size());
      for (const std::string& c : t.cases) std::printf("%s\n", c.c_str());
    }
    return harness::kExitOk;
  }
  if (selected == 0) {
    return Fail(
        absl::InvalidArgumentError(absl::StrCat("the filter '", st.filter, "' selects no case in ",
                                                targets->size(), " binaries; see the names with --list")));
  }
  const bool ab = !absl::GetFlag(FLAGS_against).empty() || !absl::GetFlag(FLAGS_against_runfiles).empty();
  if (!absl::GetFlag(FLAGS_against).empty() && !absl::GetFlag(FLAGS_against_runfiles).empty()) {
    return Fail(absl::InvalidArgumentError("give --against=REV or --against_runfiles=DIR, not both"));
  }
  std::optional<bench::BaseRevision> base;
  if (ab) {
    absl::StatusOr<bench::BaseRevision> b = AddBaseTargets(&*targets);
    if (!b.ok()) return Fail(b.status());
    base = *b;
    st.options.alternate_sides = true;
  }

  PlanRounds(selected, ab, base, &st);
  absl::StatusOr<nlohmann::json> merged = bench::RunRounds(*targets, st.options);
  if (!merged.ok()) return Fail(merged.status());
  if (std::vector<std::string> broken = BrokenEntries(*merged); !broken.empty()) {
    std::fprintf(stderr,
                 "bench: error: %zu case(s) failed their output check, errored or were DISTURBED; their "
                 "times are not results, so nothing was written:\n",
                 broken.size());
    for (const std::string& b : broken) std::fprintf(stderr, "  %s\n", b.c_str());
    return harness::kExitFailure;
  }

  return WriteResults(st, *targets, *std::move(merged), out, base);
}
