// What every benchmark binary does around Google Benchmark's run: record the run context
// (sysinfo/run_context.h) in the JSON, run the selected cases, and turn what happened into an
// exit code (harness/exit_codes.h). Google Benchmark 1.7.1 itself exits 0 when a case errored,
// when the filter matched nothing and when the filter is not a valid regex; this does not:
//   kExitOk       every selected case ran (cases skipped as not applicable, harness/skip.h,
//                 are listed on stderr with their reason)
//   kExitFailure  a case errored or failed its check, nothing was selected (the message on
//                 stderr names the filter, or the cases and their errors), or the
//                 --benchmark_out file could not be written (the path and the reason)
#ifndef HARNESS_BENCHMARK_MAIN_H_
#define HARNESS_BENCHMARK_MAIN_H_

#include <functional>
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
  bool ran = false;                  // cases ran (not only listed)
  bool write_failed = false;         // the --benchmark_out file could not be written
  int ExitCode() const;
};

// Forwards to another reporter (and to `file`, the --benchmark_out reporter, when given) and
// records errors and skips (a case with a "verified" counter below 1 counts as failed too).
class OutcomeReporter : public benchmark::BenchmarkReporter {
 public:
  explicit OutcomeReporter(benchmark::BenchmarkReporter* inner, benchmark::BenchmarkReporter* file = nullptr)
      : inner_(inner), file_(file) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  RunOutcome* outcome() { return &outcome_; }

 private:
  benchmark::BenchmarkReporter* inner_;
  benchmark::BenchmarkReporter* file_;
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

// Takes Google Benchmark's --benchmark_out over, before benchmark::Initialize: Google Benchmark
// 1.7.1 truncates the file at the start, writes it as the run goes and never checks a write, so
// an interrupted run left a previous file cut off at `"benchmarks": [` and a full device went
// unnoticed. Here --benchmark_out=FILE and --benchmark_out_format=F (or the BENCHMARK_OUT and
// BENCHMARK_OUT_FORMAT environment variables, which the flags override) are removed from argv
// (and from Google Benchmark's flags); RunSelectedBenchmarks writes the report into memory and,
// at the end, through harness/atomic_file.h's writer: an interrupted run leaves the previous
// file as it was, a device is written in place, and a failed write is exit 2.
//
// A relative FILE is in the folder `bazel run` was started from (harness/user_path.h). Prints
// "<binary>: --benchmark_out: writing <path>" on stderr. Returns the path, "" without the flag,
// or an error naming the flag and why the file cannot be written (checked now, before any case
// runs, not after the measurements) or which formats are allowed (json, console, csv).
absl::StatusOr<std::string> ResolveBenchmarkOut(const std::string& binary, int* argc, char** argv);

// The --benchmark_out path and format ResolveBenchmarkOut took ("" and "json" without one).
const std::string& BenchmarkOutPath();
const std::string& BenchmarkOutFormat();

// A change to the --benchmark_out report (JSON format only) made in memory before it is
// written, e.g. gpt_step's per-step times (macro/step_series.h); an error is the run's error.
void SetBenchmarkOutJsonAmender(std::function<absl::StatusOr<std::string>(const std::string& json)> amend);

// A note on cases this binary did not register (e.g. "80 CUDA case(s) not registered: no CUDA
// device: <reason>"): RunSelectedBenchmarks repeats it when the filter selects nothing, so a
// run that asked only for those cases fails with the reason.
void SetLeftOutNote(const std::string& note);

// Runs the cases --benchmark_filter selects with the default display reporter (and the file
// reporter --benchmark_out asks for), prints what failed or was skipped on stderr prefixed by
// `binary`, and returns the exit code. With --benchmark_list_tests only an empty selection is
// an error. The --benchmark_out file taken over by ResolveBenchmarkOut is written at the end
// (not when nothing was selected or cases were only listed): a failed write is
// "<binary>: error: --benchmark_out: cannot write '<path>': <reason>" and kExitFailure. It holds
// what the display shows: with --benchmark_display_aggregates_only, the aggregates only.
int RunSelectedBenchmarks(const std::string& binary, RunOutcome* outcome = nullptr);

}  // namespace harness

#endif  // HARNESS_BENCHMARK_MAIN_H_
