// Run context in the JSON, and exit codes from what the cases did; see benchmark_main.h.
#include "harness/benchmark_main.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "harness/atomic_file.h"
#include "harness/exit_codes.h"
#include "harness/json_doc.h"
#include "harness/skip.h"
#include "harness/user_path.h"
#include "sysinfo/cuda_info.h"
#include "sysinfo/run_context.h"

// Google Benchmark 1.7.1's own flags (src/benchmark.cc, BM_DEFINE_string): set from the
// BENCHMARK_OUT / BENCHMARK_OUT_FORMAT environment variables before main, and from argv by
// benchmark::Initialize. ResolveBenchmarkOut clears them, so that the library never opens the
// file itself.
namespace benchmark {
extern std::string FLAGS_benchmark_out;
extern std::string FLAGS_benchmark_out_format;
}  // namespace benchmark

namespace harness {
namespace {

std::string& LeftOutNote() {
  static std::string* note = new std::string();
  return *note;
}

// The --benchmark_out ResolveBenchmarkOut took over.
struct TakenOut {
  std::string path;
  std::string format = "json";
  std::function<absl::StatusOr<std::string>(const std::string&)> amend_json;
};

TakenOut& Taken() {
  static TakenOut* t = new TakenOut();
  return *t;
}

std::unique_ptr<benchmark::BenchmarkReporter> MakeFileReporter(const std::string& format) {
  if (format == "console")
    return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // CSVReporter: deprecated, still supported
  if (format == "csv") return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  return std::make_unique<benchmark::JSONReporter>();
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

absl::StatusOr<std::string> ResolveBenchmarkOut(const std::string& binary, int* argc, char** argv) {
  // The environment's values first (already in the library's flags), then argv's.
  std::string path = benchmark::FLAGS_benchmark_out;
  std::string format = benchmark::FLAGS_benchmark_out_format;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--benchmark_out=")) {
      path = std::string(a);
    } else if (absl::ConsumePrefix(&a, "--benchmark_out_format=")) {
      format = std::string(a);
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  benchmark::FLAGS_benchmark_out.clear();
  benchmark::FLAGS_benchmark_out_format = "json";
  if (format != "json" && format != "console" && format != "csv") {
    return absl::InvalidArgumentError(
        absl::StrCat("--benchmark_out_format=", format, ": allowed: json, console, csv"));
  }
  Taken().path.clear();
  Taken().format = format;
  if (path.empty()) return path;
  path = UserPath(path);
  if (absl::Status w = CheckWritable(path); !w.ok())
    return absl::Status(w.code(), absl::StrCat("--benchmark_out: ", w.message()));
  Taken().path = path;
  std::fprintf(stderr, "%s: --benchmark_out: writing %s\n", binary.c_str(), path.c_str());
  return path;
}

const std::string& BenchmarkOutPath() { return Taken().path; }

const std::string& BenchmarkOutFormat() { return Taken().format; }

void SetBenchmarkOutJsonAmender(std::function<absl::StatusOr<std::string>(const std::string&)> amend) {
  Taken().amend_json = std::move(amend);
}

void SetLeftOutNote(const std::string& note) { LeftOutNote() = note; }

void AddRunContext() {
  const nlohmann::json rc = sysinfo::RunContext();
  benchmark::AddCustomContext("mlbench_run_context", DumpJson(rc));
  benchmark::AddCustomContext("mlbench_machine", sysinfo::DescribeRunContext(rc));
  benchmark::AddCustomContext("mlbench_commit", rc["build"]["commit"].get<std::string>());
}

int RunOutcome::ExitCode() const {
  if (selected == 0 || !failed.empty() || write_failed) return kExitFailure;
  return kExitOk;
}

bool OutcomeReporter::ReportContext(const Context& context) {
  outcome_.ran = true;
  if (file_ != nullptr) file_->ReportContext(context);
  return inner_->ReportContext(context);
}

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
  if (file_ != nullptr) file_->ReportRuns(runs);
  inner_->ReportRuns(runs);
}

void OutcomeReporter::Finalize() {
  if (file_ != nullptr) file_->Finalize();
  inner_->Finalize();
}

int RunSelectedBenchmarks(const std::string& binary, RunOutcome* outcome) {
  const TakenOut& out = Taken();
  std::ostringstream file_text;  // the --benchmark_out report, written at the end
  std::unique_ptr<benchmark::BenchmarkReporter> file;
  if (!out.path.empty()) {
    file = MakeFileReporter(out.format);
    file->SetOutputStream(&file_text);
    file->SetErrorStream(&file_text);
  }
  OutcomeReporter reporter(benchmark::CreateDefaultDisplayReporter(), file.get());
  reporter.outcome()->selected = benchmark::RunSpecifiedBenchmarks(&reporter);
  RunOutcome& o = *reporter.outcome();
  if (file != nullptr && o.selected > 0 && o.ran) {
    absl::StatusOr<std::string> text = file_text.str();
    if (out.format == "json" && out.amend_json) text = out.amend_json(*text);
    absl::Status st = text.ok() ? WriteFileAtomically(out.path, *text) : text.status();
    if (!st.ok()) {
      std::fprintf(stderr, "%s: error: --benchmark_out: %s\n", binary.c_str(),
                   std::string(st.message()).c_str());
      o.write_failed = true;
    }
  }
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
