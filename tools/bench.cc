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
// input of //tools:gate. Exit status: 0 done, 2 bad input or a binary that failed.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tools/bench_binaries.h"
#include "tools/bench_context.h"
#include "tools/bench_runner.h"
#include "tools/gate_io.h"
#include "tools/stats.h"

ABSL_FLAG(std::string, filter, "",
          "regex on full case names (Google Benchmark semantics; leading '-' negates). "
          "Empty: every case, or the quick suite with --quick");
ABSL_FLAG(bool, list, false, "print the selected case names and exit without running them");
ABSL_FLAG(std::string, out, "bench.json", "merged JSON output (relative to where bazel was run)");
ABSL_FLAG(int, repetitions, 1, "rounds: every selected binary runs this many times in turn");
ABSL_FLAG(bool, quick, false, "short runs: --benchmark_min_time=0.05, and the quick suite when no --filter");
ABSL_FLAG(double, min_time, 0, "--benchmark_min_time in seconds (0: 0.05 with --quick, else the binary's default)");
ABSL_FLAG(std::string, suite, "", "suite name recorded for tools/gate's baseline file "
          "(default: 'quick' with --quick and no --filter, 'custom' with a filter, else 'full')");
ABSL_FLAG(int, threads, -1,
          "threads for the benchmarks (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MLBENCH_THREADS); "
          "0 leaves the environment as it is; default: 1 with --quick, else 0");
ABSL_FLAG(double, max_contention, 0.15,
          "retry a binary's run when other processes used more than this share of the machine's "
          "CPU beyond the cores the benchmarks leave idle");
ABSL_FLAG(int, retries, 2, "extra attempts per binary and round when the machine was busy");
ABSL_FLAG(bool, calibration, true, "also run //tools:bench_calibration in every round");
ABSL_FLAG(std::string, binaries, "",
          "comma-separated binaries (runfiles paths or files) to use instead of the known list; "
          "for tests and experiments");

namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "bench: %s\n", std::string(s.message()).c_str());
  return 2;
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

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "bazel run //tools:bench -- [--filter=REGEX] [--list] [--out=FILE] [--repetitions=N] [--quick]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", rest[1], "' (flags are --name=value; see --help)")));
  }
  const bool quick = absl::GetFlag(FLAGS_quick);
  std::string filter = absl::GetFlag(FLAGS_filter);
  const bool quick_suite = quick && filter.empty();
  if (quick_suite) filter = bench::QuickFilter();
  const int repetitions = absl::GetFlag(FLAGS_repetitions);
  if (repetitions < 1 || repetitions > 1000) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--repetitions=", repetitions, " is out of range; allowed: 1 to 1000")));
  }
  double min_time = absl::GetFlag(FLAGS_min_time);
  if (min_time < 0 || min_time > 60) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--min_time=", min_time, " is out of range; allowed: 0 (default) to 60 seconds")));
  }
  if (min_time == 0 && quick) min_time = 0.05;
  int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0) threads = quick ? 1 : 0;
  if (threads > 1024) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--threads=", threads, " is out of range; allowed: 0 (as is) to 1024")));
  }
  if (threads > 0) {
    // Children inherit these. One thread is the quick suite's choice: on a small shared
    // machine a 2-thread BLAS or OpenMP loop stalls at every barrier whenever anything else
    // wants a core, while a single thread leaves the other core to the intruder.
    const std::string n = std::to_string(threads);
    setenv("OMP_NUM_THREADS", n.c_str(), 1);
    setenv("OPENBLAS_NUM_THREADS", n.c_str(), 1);
    setenv("MLBENCH_THREADS", n.c_str(), 1);
  }
  std::string suite = absl::GetFlag(FLAGS_suite);
  if (suite.empty()) suite = quick_suite ? "quick" : (filter.empty() ? "full" : "custom");

  std::vector<bench::BenchBinary> binaries;
  if (std::string list = absl::GetFlag(FLAGS_binaries); !list.empty()) {
    for (absl::string_view p : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      binaries.push_back({std::string(p), std::string(p)});
    }
  } else {
    binaries = bench::KnownBinaries();
  }
  if (binaries.empty()) {
    std::fprintf(stderr, "bench: warning: no benchmark binaries are listed in BENCH_BINARIES "
                         "(tools/BUILD.bazel); only calibration cases can run\n");
  }

  std::vector<bench::Target> targets;
  const bool calibration = absl::GetFlag(FLAGS_calibration);
  if (calibration && !absl::GetFlag(FLAGS_list)) {
    bench::BenchBinary cal = bench::CalibrationBinary();
    absl::StatusOr<std::string> exe = bench::LocateBinary(cal.runfiles_path, argv[0]);
    if (!exe.ok()) return Fail(exe.status());
    absl::StatusOr<std::vector<std::string>> cases = bench::ListCases(*exe, "");
    if (!cases.ok()) return Fail(cases.status());
    targets.push_back({cal, *exe, "", *cases});
  }
  size_t selected = 0;
  for (const bench::BenchBinary& b : binaries) {
    absl::StatusOr<std::string> exe = bench::LocateBinary(b.runfiles_path, argv[0]);
    if (!exe.ok()) return Fail(exe.status());
    absl::StatusOr<std::vector<std::string>> cases = bench::ListCases(*exe, filter);
    if (!cases.ok()) return Fail(cases.status());
    selected += cases->size();
    targets.push_back({b, *exe, filter, *cases});
  }

  if (absl::GetFlag(FLAGS_list)) {
    for (const bench::Target& t : targets) {
      std::fprintf(stderr, "# %s: %zu case(s)\n", t.binary.label.c_str(), t.cases.size());
      for (const std::string& c : t.cases) std::printf("%s\n", c.c_str());
    }
    return 0;
  }
  if (selected == 0) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "the filter '", filter, "' selects no case in ", binaries.size(),
        " binaries; see the names with --list")));
  }

  std::fprintf(stderr, "bench: %zu case(s)%s, %d round(s), min_time %s, threads %s, suite '%s'\n", selected,
               calibration ? " + calibration" : "", repetitions,
               min_time > 0 ? absl::StrCat(min_time, " s").c_str() : "default",
               threads > 0 ? std::to_string(threads).c_str() : "as the environment says", suite.c_str());
  bench::RunOptions options;
  options.repetitions = repetitions;
  options.min_time = min_time;
  options.max_contention = absl::GetFlag(FLAGS_max_contention);
  options.retries = absl::GetFlag(FLAGS_retries);
  if (!(options.max_contention > 0 && options.max_contention <= 1) || options.retries < 0 ||
      options.retries > 20) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--max_contention=", options.max_contention, " / --retries=", options.retries,
        " out of range; allowed: 0 < max_contention <= 1, 0 <= retries <= 20")));
  }
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const long used = threads > 0 ? std::min<long>(threads, cpus) : cpus;
  options.idle_share = static_cast<double>(cpus - used) / cpus;
  options.progress = [&](int round, const bench::Target& t, double secs, double foreign, double contention,
                         int attempts) {
    std::fprintf(stderr,
                 "bench: round %d/%d  %-28s %3zu case(s) %6.1f s  others used %3.0f%% of the CPU "
                 "(contention %3.0f%%)%s\n",
                 round + 1, repetitions, t.binary.label.c_str(), t.cases.size(), secs, 100 * foreign,
                 100 * contention, attempts > 1 ? absl::StrCat(" (", attempts, " attempts)").c_str() : "");
  };
  absl::StatusOr<nlohmann::json> merged = bench::RunRounds(targets, options);
  if (!merged.ok()) return Fail(merged.status());

  nlohmann::json m = bench::MachineContext();
  m["suite"] = suite;
  m["filter"] = filter;
  m["repetitions"] = repetitions;
  m["min_time"] = min_time;
  m["calibration"] = calibration;
  m["threads"] = threads;
  m["max_contention"] = options.max_contention;
  nlohmann::json labels = nlohmann::json::array();
  for (const bench::Target& t : targets) labels.push_back(t.binary.label);
  m["binaries"] = labels;
  (*merged)["context"]["mlbench"] = m;

  const std::string out = gate::UserPath(absl::GetFlag(FLAGS_out));
  if (absl::Status s = gate::WriteFileAtomically(out, merged->dump(2) + "\n"); !s.ok()) return Fail(s);
  PrintSummary(*merged);
  std::fprintf(stderr, "bench: wrote %s (%zu results; commit %s, %s build)\n", out.c_str(),
               (*merged)["benchmarks"].size(), m["commit"].get<std::string>().c_str(),
               m["build_type"].get<std::string>().c_str());
  return 0;
}
