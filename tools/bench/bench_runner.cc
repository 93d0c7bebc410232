// Locating, listing, running and merging benchmark binaries; see bench_runner.h.
#include "tools/bench/bench_runner.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/atomic_file.h"
#include "harness/subprocess.h"
#include "harness/user_path.h"
#include "tools/gate/gate_io.h"

namespace bench {
namespace {

constexpr char kWorkspace[] = "mlbench";

bool IsExecutableFile(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// A fresh "<TEST_TMPDIR or TMPDIR or /tmp>/mlbench_bench_XXXXXX" file, removed when the
// returned guard goes and by SIGINT / SIGTERM (harness/atomic_file.h).
std::unique_ptr<harness::TempFileGuard> TempJsonFile() {
  const char* dir = std::getenv("TEST_TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = "/tmp";
  std::string templ = absl::StrCat(dir, "/mlbench_bench_XXXXXX");
  // Created and registered with SIGINT / SIGTERM held back, so that a signal finds it registered.
  sigset_t stop_signals, before;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
  int fd = mkstemp(templ.data());
  if (fd >= 0) close(fd);
  auto guard = std::make_unique<harness::TempFileGuard>(templ);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return guard;
}

}  // namespace

CpuSample SampleCpu() {
  CpuSample s;
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
    s.children_s =
        ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  }
  std::ifstream f("/proc/stat");
  std::string line;
  if (!std::getline(f, line) || line.rfind("cpu ", 0) != 0) return s;
  std::istringstream in(line.substr(4));
  double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // user nice system idle iowait irq softirq steal
  for (double& x : v) in >> x;
  if (!in && !in.eof()) return s;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  if (hz <= 0) return s;
  s.busy_s = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
  s.total_s = s.busy_s + (v[3] + v[4]) / hz;
  s.valid = true;
  return s;
}

double ForeignCpuFraction(const CpuSample& a, const CpuSample& b) {
  if (!a.valid || !b.valid) return 0;
  double total = b.total_s - a.total_s;
  if (total <= 0) return 0;
  double foreign = (b.busy_s - a.busy_s) - (b.children_s - a.children_s);
  return std::min(1.0, std::max(0.0, foreign / total));
}

double Contention(double foreign, double idle_share) { return std::max(0.0, foreign - idle_share); }

absl::StatusOr<std::string> LocateBinary(const std::string& runfiles_path, const std::string& argv0) {
  std::vector<std::string> tried;
  auto under = [&](const char* root) { return absl::StrCat(root, "/", kWorkspace, "/", runfiles_path); };
  std::vector<std::string> candidates;
  if (const char* r = std::getenv("RUNFILES_DIR"); r != nullptr && *r) candidates.push_back(under(r));
  if (!argv0.empty()) candidates.push_back(under(absl::StrCat(argv0, ".runfiles").c_str()));
  if (const char* t = std::getenv("TEST_SRCDIR"); t != nullptr && *t) candidates.push_back(under(t));
  candidates.push_back(runfiles_path);  // `bazel run` starts in <runfiles>/mlbench
  candidates.push_back(harness::UserPath(runfiles_path));
  for (const std::string& c : candidates) {
    if (IsExecutableFile(c)) {
      // The runfiles tree is a tree of symlinks that another bazel command may rebuild while
      // bench runs (a shared checkout): hold on to the file itself.
      char* real = realpath(c.c_str(), nullptr);
      if (real == nullptr) return c;
      std::string resolved(real);
      free(real);
      return resolved;
    }
    tried.push_back(c);
  }
  return absl::NotFoundError(absl::StrCat("benchmark binary '", runfiles_path,
                                          "' not found; looked in: ", absl::StrJoin(tried, ", "),
                                          ". Is it in BENCH_BINARIES (tools/BUILD.bazel) and built?"));
}

absl::StatusOr<std::vector<std::string>> ListCases(const std::string& exe, const std::string& filter) {
  std::vector<std::string> argv = {exe, "--benchmark_list_tests=true"};
  if (!filter.empty()) argv.push_back(absl::StrCat("--benchmark_filter=", filter));
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  // A bad regex: Google Benchmark 1.7.1 says so on stderr (and exits 0; our binaries exit 2).
  if (size_t pos = r->stderr_text.find("Could not compile benchmark re"); pos != std::string::npos) {
    std::string msg(absl::StripAsciiWhitespace(r->stderr_text.substr(pos)));
    return absl::InvalidArgumentError(
        absl::StrCat("the filter '", filter, "' is not a valid regex: ", msg.substr(0, 300)));
  }
  // One binary with no case for the filter is normal here (the filter spans every binary);
  // our binaries exit 2 on it, older ones 0.
  if (r->stderr_text.find("Failed to match any benchmarks against regex") != std::string::npos) {
    return std::vector<std::string>{};
  }
  if (r->exit_code != 0) {
    return absl::InternalError(absl::StrCat("listing the cases of ", exe, " with filter '", filter,
                                            "' failed (exit ", r->exit_code,
                                            "): ", harness::Tail(r->stderr_text + r->stdout_text, 2000)));
  }
  std::vector<std::string> cases;
  for (absl::string_view line : absl::StrSplit(r->stdout_text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) cases.emplace_back(line);
  }
  return cases;
}

absl::StatusOr<nlohmann::json> RunOnce(const Target& target, double min_time) {
  const std::unique_ptr<harness::TempFileGuard> temp = TempJsonFile();
  const std::string& out = temp->path();
  std::vector<std::string> argv = {target.exe,
                                   "--benchmark_repetitions=1",
                                   absl::StrCat("--benchmark_out=", out),
                                   "--benchmark_out_format=json",
                                   "--benchmark_format=console",
                                   "--benchmark_color=false"};
  if (!target.filter.empty()) argv.push_back(absl::StrCat("--benchmark_filter=", target.filter));
  if (min_time > 0) argv.push_back(absl::StrCat("--benchmark_min_time=", min_time));
  // Both streams are captured: the console table and Google Benchmark's context banner would
  // repeat every round. They are shown when the binary fails.
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    return absl::InternalError(absl::StrCat(
        target.binary.label, " (", target.exe, ") exited with ", r->exit_code, "; its output ended with:\n",
        harness::Tail(r->stdout_text, 1500), "\n", harness::Tail(r->stderr_text, 1500)));
  }
  absl::StatusOr<nlohmann::json> j = gate::ReadJsonFile(out);
  if (!j.ok()) {
    return absl::Status(j.status().code(),
                        absl::StrCat(target.binary.label, " wrote a bad report: ", j.status().message()));
  }
  if (!j->is_object() || !j->contains("benchmarks") || !(*j)["benchmarks"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(target.binary.label, " wrote JSON without a \"benchmarks\" array"));
  }
  return j;
}

std::vector<Target> RoundOrder(const std::vector<Target>& targets, int round, bool alternate_sides) {
  if (!alternate_sides) return targets;
  const int first = round % 2 == 0 ? kBaseSide : kCurrentSide;
  std::vector<Target> out;
  for (int side : {first, 1 - first}) {
    for (const Target& t : targets) {
      if (t.side == side) out.push_back(t);
    }
  }
  return out;
}

absl::StatusOr<nlohmann::json> RunRounds(const std::vector<Target>& targets, const RunOptions& options) {
  if (options.repetitions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("repetitions = ", options.repetitions, "; it must be at least 1"));
  }
  nlohmann::json merged = {{"context", nlohmann::json::object()}, {"benchmarks", nlohmann::json::array()}};
  bool has_base = false;
  for (const Target& t : targets) has_base = has_base || t.side == kBaseSide;
  if (has_base) merged["base_context"] = nlohmann::json::object();
  bool have_context[2] = {false, false};
  for (int round = 0; round < options.repetitions; ++round) {
    for (const Target& t : RoundOrder(targets, round, options.alternate_sides)) {
      if (t.cases.empty()) continue;
      auto start = std::chrono::steady_clock::now();
      absl::StatusOr<nlohmann::json> j;
      double foreign = 2, contention = 2;  // of the attempt kept
      int attempts = 0;
      for (int attempt = 0; attempt <= std::max(0, options.retries); ++attempt) {
        if (attempt > 0) {
          std::this_thread::sleep_for(std::chrono::duration<double>(options.retry_wait_s));
        }
        // A/B: the child knows its side (test fixtures use it to slow one side down).
        if (has_base) setenv("MLBENCH_AB_SIDE", t.side == kBaseSide ? "base" : "current", 1);
        CpuSample before = SampleCpu();
        absl::StatusOr<nlohmann::json> a = RunOnce(t, options.min_time);
        CpuSample after = SampleCpu();
        if (!a.ok()) return a.status();
        ++attempts;
        double f = ForeignCpuFraction(before, after);
        double c = Contention(f, options.idle_share);
        if (c < contention || (c == contention && f < foreign)) {
          foreign = f;
          contention = c;
          j = std::move(a);
        }
        if (c <= options.max_contention) break;
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // Context: the first benchmark binary's (the calibration binary's only if nothing else
      // runs), plus keys other binaries add that it lacks (their custom context).
      if (j->contains("context") && (*j)["context"].is_object()) {
        const bool is_calibration = t.binary.label == CalibrationBinary().label;
        nlohmann::json& context = merged[t.side == kBaseSide ? "base_context" : "context"];
        if (!have_context[t.side] && !is_calibration) {
          nlohmann::json ctx = (*j)["context"];
          for (auto& [k, v] : context.items()) {
            if (!ctx.contains(k)) ctx[k] = v;
          }
          context = std::move(ctx);
          have_context[t.side] = true;
        } else {
          for (auto& [k, v] : (*j)["context"].items()) {
            if (!context.contains(k)) context[k] = v;
          }
        }
      }
      std::set<std::string> seen;
      for (nlohmann::json& b : (*j)["benchmarks"]) {
        if (!b.is_object()) continue;
        if (b.contains("run_type") && b["run_type"] != "iteration") continue;  // no aggregates
        b["repetition_index"] = round;
        b["repetitions"] = options.repetitions;
        b["mlbench_binary"] = t.binary.label;
        b["mlbench_foreign_cpu"] = foreign;
        b["mlbench_contention"] = contention;
        b["mlbench_attempts"] = attempts;
        if (has_base) b["mlbench_side"] = t.side == kBaseSide ? "base" : "current";
        if (b.contains("name") && b["name"].is_string()) seen.insert(b["name"].get<std::string>());
        merged["benchmarks"].push_back(std::move(b));
      }
      for (const std::string& c : t.cases) {
        if (seen.count(c) == 0) {
          std::fprintf(stderr, "bench: warning: %s listed '%s' but reported no result for it in round %d\n",
                       t.binary.label.c_str(), c.c_str(), round + 1);
        }
      }
      if (options.progress) options.progress(round, t, secs, foreign, contention, attempts);
    }
  }
  return merged;
}

}  // namespace bench
