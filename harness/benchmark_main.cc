// Run context in the JSON, and exit codes from what the cases did; see benchmark_main.h.
#include "harness/benchmark_main.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "harness/atomic_file.h"
#include "harness/exit_codes.h"
#include "harness/json_doc.h"
#include "harness/skip.h"
#include "harness/user_path.h"
#include "sysinfo/cuda_info.h"
#include "sysinfo/run_context.h"

namespace harness {
namespace {

std::string& LeftOutNote() {
  static std::string* note = new std::string();
  return *note;
}

}  // namespace

StdoutUse ReadStdoutUse(int argc, char** argv) {
  StdoutUse use;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view a = argv[i];
    if (absl::StartsWith(a, "--benchmark_format=") && !absl::EndsWith(a, "=console"))
      use.machine_readable = true;
    if (absl::StartsWith(a, "--benchmark_list_tests") && !absl::EndsWith(a, "=false")) use.listing = true;
  }
  return use;
}

absl::StatusOr<std::string> ResolveBenchmarkOut(const std::string& binary, int argc, char** argv) {
  const std::string path = RewritePathFlag(argc, argv, "benchmark_out");
  if (path.empty()) return path;
  if (absl::Status w = CheckWritable(path); !w.ok())
    return absl::Status(w.code(), absl::StrCat("--benchmark_out: ", w.message()));
  std::fprintf(stderr, "%s: --benchmark_out: writing %s\n", binary.c_str(), path.c_str());
  return path;
}

void SetLeftOutNote(const std::string& note) { LeftOutNote() = note; }

void AddRunContext() {
  const nlohmann::json rc = sysinfo::RunContext();
  benchmark::AddCustomContext("mlbench_run_context", DumpJson(rc));
  benchmark::AddCustomContext("mlbench_machine", sysinfo::DescribeRunContext(rc));
  benchmark::AddCustomContext("mlbench_commit", rc["build"]["commit"].get<std::string>());
}

int RunOutcome::ExitCode() const {
  if (selected == 0 || !failed.empty()) return kExitFailure;
  return kExitOk;
}

bool OutcomeReporter::ReportContext(const Context& context) { return inner_->ReportContext(context); }

void OutcomeReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : runs) {
    if (r.run_type != Run::RT_Iteration) continue;  // aggregates repeat what the iterations said
    const std::string name = r.benchmark_name();
    if (r.error_occurred) {
      if (IsSkipMessage(r.error_message)) {
        outcome_.skipped.push_back(name + ": " + r.error_message.substr(sizeof(kSkipPrefix) - 1));
      } else {
        outcome_.failed.push_back(name + ": " + r.error_message);
      }
      continue;
    }
    auto v = r.counters.find("verified");
    if (v != r.counters.end() && !(std::fabs(v->second.value - 1.0) < 1e-9)) {
      char value[32];
      std::snprintf(value, sizeof(value), "%g", static_cast<double>(v->second.value));
      outcome_.failed.push_back(name + ": output check failed (verified = " + value + ")");
    }
  }
  inner_->ReportRuns(runs);
}

void OutcomeReporter::Finalize() { inner_->Finalize(); }

int RunSelectedBenchmarks(const std::string& binary, RunOutcome* outcome) {
  OutcomeReporter reporter(benchmark::CreateDefaultDisplayReporter());
  reporter.outcome()->selected = benchmark::RunSpecifiedBenchmarks(&reporter);
  const RunOutcome& o = *reporter.outcome();
  if (o.selected == 0) {
    const std::string& note = LeftOutNote();
    std::fprintf(stderr,
                 "%s: error: --benchmark_filter='%s' selects no case (or is not a valid regex; see the "
                 "message above); list the cases with --benchmark_list_tests%s%s\n",
                 binary.c_str(), benchmark::GetBenchmarkFilter().c_str(), note.empty() ? "" : "; ",
                 note.c_str());
  }
  if (!o.skipped.empty()) {
    std::fprintf(stderr, "%s: %zu case(s) skipped as not applicable on this machine:\n", binary.c_str(),
                 o.skipped.size());
    for (const std::string& s : o.skipped) std::fprintf(stderr, "  %s\n", s.c_str());
  }
  if (!o.failed.empty()) {
    std::fprintf(stderr, "%s: error: %zu case(s) failed; their times are not results:\n", binary.c_str(),
                 o.failed.size());
    for (const std::string& s : o.failed) std::fprintf(stderr, "  %s\n", s.c_str());
  }
  if (outcome != nullptr) *outcome = o;
  return o.ExitCode();
}

}  // namespace harness
