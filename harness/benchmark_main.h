// What every benchmark binary does around Google Benchmark's run: record the run context
// (sysinfo/run_context.h) in the JSON, run the selected cases, and turn what happened into an
// exit code (harness/exit_codes.h). Google Benchmark 1.7.1 itself exits 0 when a case errored,
// when the filter matched nothing and when the filter is not a valid regex; this does not:
//   kExitOk       every selected case ran (cases skipped as not applicable, harness/skip.h,
//                 are listed on stderr with their reason)
//   kExitFailure  a case errored or failed its check, or nothing was selected (the message on
//                 stderr names the filter, or the cases and their errors)
#ifndef HARNESS_BENCHMARK_MAIN_H_
#define HARNESS_BENCHMARK_MAIN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"

namespace harness {

// Adds the run context to Google Benchmark's JSON context: "mlbench_run_context" (the whole
// context as a JSON string, which tools/gate keys baselines on) and a few readable keys
// (mlbench_cpu, mlbench_gemm, mlbench_commit, mlbench_build).
void AddRunContext();

// The outcome of one RunSpecifiedBenchmarks call.
struct RunOutcome {
  size_t selected = 0;               // cases the filter selected
  std::vector<std::string> failed;   // "name: message", errored or unverified cases
  std::vector<std::string> skipped;  // "name: reason"
  int ExitCode() const;
};

// Forwards to another reporter and records errors and skips (a case with a "verified"
// counter below 1 counts as failed too).
class OutcomeReporter : public benchmark::BenchmarkReporter {
 public:
  explicit OutcomeReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  RunOutcome* outcome() { return &outcome_; }

 private:
  benchmark::BenchmarkReporter* inner_;
  RunOutcome outcome_;
};

// What the command line asks of stdout, read before Google Benchmark parses it: a list of the
// case names (--benchmark_list_tests) or a machine-readable report (--benchmark_format other than
// console). Either way a binary's own progress lines belong on stderr.
struct StdoutUse {
  bool listing = false;
  bool machine_readable = false;
  bool ProgressToStderr() const { return listing || machine_readable; }
};
StdoutUse ReadStdoutUse(int argc, char** argv);

// Rewrites a relative --benchmark_out=FILE in argv to an absolute path in the folder `bazel run`
// was started from (harness/user_path.h), before benchmark::Initialize reads it (Google
// Benchmark would open it relative to the runfiles folder), and prints
// "<binary>: --benchmark_out: writing <path>" on stderr. Returns the path, "" without the flag,
// or an error naming the flag and why the file cannot be written (checked now, before any case
// runs, not after the measurements).
absl::StatusOr<std::string> ResolveBenchmarkOut(const std::string& binary, int argc, char** argv);

// A note on cases this binary did not register (e.g. "80 CUDA case(s) not registered: no CUDA
// device: <reason>"): RunSelectedBenchmarks repeats it when the filter selects nothing, so a
// run that asked only for those cases fails with the reason.
void SetLeftOutNote(const std::string& note);

// Runs the cases --benchmark_filter selects with the default display reporter (and the file
// reporter --benchmark_out asks for), prints what failed or was skipped on stderr prefixed by
// `binary`, and returns the exit code. With --benchmark_list_tests only an empty selection is
// an error.
int RunSelectedBenchmarks(const std::string& binary, RunOutcome* outcome = nullptr);

}  // namespace harness

#endif  // HARNESS_BENCHMARK_MAIN_H_
