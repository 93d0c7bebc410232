// RunSweep (sweep_run.h).
#include "tools/sweep/sweep_run.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/ceilings.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "harness/exit_codes.h"
#include "harness/subprocess.h"
#include "model/host_memory.h"
#include "nlohmann/json.hpp"
#include "tools/sweep/sweep_output.h"
#include "tools/sweep/sweep_progress.h"
#include "tools/sweep/sweep_summary.h"

namespace sweep {
namespace {

std::string Bytes(double b) { return b < 0 ? "n/a" : absl::StrFormat("%.2f GB", b / 1e9); }

int StepsRun(const CommonFlags& c) { return c.steps + c.warmup_steps; }

// Half the --ceilings file's fp32 peak, else 50 GFLOP/s: the rate guessed before any run finishes.
double GuessedRate(const CommonFlags& c) {
  if (c.ceilings.empty()) return 50e9;
  auto file = accounting::ReadCeilings(c.ceilings);
  if (!file.ok()) return 50e9;
  auto it = file->peak_flops.find("fp32");
  return it != file->peak_flops.end() && it->second > 0 ? 0.5 * it->second : 50e9;
}

// The plan: one line per point (memory against what is available, FLOPs, the time a run may
// take) or its refusal; returns how many points run.
int PrintPlan(const std::vector<PlannedPoint>& planned, const TimeEstimate& estimate, const SweepSettings& s) {
  const model::HostMemory host = model::AvailableHostMemory();
  int runnable = 0;
  double seconds = 0;
  std::printf("sweep: %zu points x %d repetitions, %d + %d steps a run; %s available (%s)\n", planned.size(),
              s.repetitions, s.common.warmup_steps, s.common.steps, Bytes(static_cast<double>(host.bytes)).c_str(),
              host.what.c_str());
  for (size_t i = 0; i < planned.size(); ++i) {
    const PlannedPoint& p = planned[i];
    if (!p.refused.empty()) {
      std::printf("  refused  %-34s %s\n", p.point.Short().c_str(), p.refused.c_str());
      continue;
    }
    ++runnable;
    const double run_s = estimate.RunSeconds(static_cast<int>(i), p.model_flops_per_step, StepsRun(s.common));
    seconds += run_s * s.repetitions;
    std::printf("  point %-3zu %-32s needs %s, %.3g FLOPs a step, about %s a run\n", i + 1, p.point.Short().c_str(),
                Bytes(static_cast<double>(p.memory_bytes)).c_str(), p.model_flops_per_step,
                FormatDuration(run_s).c_str());
  }
  std::printf("sweep: %d of %zu points run, %d runs, about %s (a guess until the first run: half the "
              "--ceilings peak or 50 GFLOP/s, 20 s start-up a run)\n",
              runnable, planned.size(), runnable * s.repetitions, FormatDuration(seconds).c_str());
  std::fflush(stdout);
  return runnable;
}

// One run of gpt_step; its JSON text or why it failed.
absl::StatusOr<std::string> RunOne(const std::string& exe, const PlannedPoint& p, const SweepSettings& s,
                                   const std::string& gemm_rates, const std::string& json_out, int repetition) {
  std::vector<std::string> argv = {exe};
  for (std::string& a : GptStepArgs(p, s.common, gemm_rates, json_out)) argv.push_back(std::move(a));
  ::unlink(json_out.c_str());
  auto r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  if (!s.log_dir.empty()) {
    const std::string log = absl::StrCat(s.log_dir, "/", p.point.Name(p.options.device).substr(9), ".r",
                                         repetition + 1, ".log");
    std::string safe = log;
    for (size_t i = s.log_dir.size() + 1; i < safe.size(); ++i) {
      if (safe[i] == '/' || safe[i] == ':') safe[i] = '_';
    }
    (void)harness::WriteFileAtomically(safe, absl::StrCat(r->stdout_text, r->stderr_text));
  }
  if (r->exit_code != 0) {
    return absl::InternalError(absl::StrCat("gpt_step exited ", r->exit_code, ": ",
                                            harness::Tail(r->stderr_text + r->stdout_text, 600)));
  }
  auto text = harness::ReadFileAtMost(json_out, uint64_t{64} << 20, "gpt_step's --benchmark_out");
  ::unlink(json_out.c_str());
  if (!text.ok()) return text.status();
  return *text;
}

std::string ProgressLine(const RunFigures& f) {
  std::string line = absl::StrFormat("%.4g ms/step, MFU %.2f%%", f.ms_per_step, 100 * f.mfu);
  if (f.predicted_ms > 0) {
    absl::StrAppend(&line, absl::StrFormat(", predicted %.4g ms (measured %.2fx)", f.predicted_ms,
                                           f.ms_per_step / f.predicted_ms));
  }
  if (f.peak_bytes_measured > 0) {
    absl::StrAppend(&line, ", peak ", Bytes(f.peak_bytes_measured), " (predicted ", Bytes(f.predicted_peak_bytes), ")");
  }
  if (f.disturbed) absl::StrAppend(&line, ", DISTURBED");
  return line;
}

// The GEMM-rate cache as it was before a run, to put back when the run's own measurements are
// not to be kept (a DISTURBED or failed run: rates measured in a slow minute would stand for
// every later run of those shapes; on a shared Zen 3 VM one such minute made three points'
// predictions 1.6x too slow).
struct CacheSnapshot {
  std::string path;
  bool existed = false;
  std::string bytes;

  static CacheSnapshot Take(const std::string& path) {
    CacheSnapshot s;
    s.path = path;
    auto text = harness::ReadFileAtMost(path, uint64_t{64} << 20, "the GEMM-rate cache");
    s.existed = text.ok();
    if (s.existed) s.bytes = *text;
    return s;
  }
  void Restore() const {
    if (existed) {
      (void)harness::WriteFileAtomically(path, bytes);
    } else {
      ::unlink(path.c_str());
    }
  }
};

struct Loop {
  const SweepSettings& s;
  const std::vector<PlannedPoint>& planned;
  std::string exe, gemm_rates, json_out;
  SweepOutput* output;
  TimeEstimate* estimate;
};

// Every run in order; the JSON rewritten after each. False when --out could not be written.
bool RunAll(const Loop& l, const std::vector<SweepRun>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    const PlannedPoint& p = l.planned[order[i].point];
    const CacheSnapshot cache = CacheSnapshot::Take(l.gemm_rates);
    const auto t0 = std::chrono::steady_clock::now();
    auto text = RunOne(l.exe, p, l.s, l.gemm_rates, l.json_out, order[i].repetition);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string line;
    absl::StatusOr<RunFigures> f = text.ok() ? l.output->AddRun(order[i].point, order[i].repetition, *text)
                                             : absl::StatusOr<RunFigures>(text.status());
    if (f.ok()) {
      l.estimate->AddRun(order[i].point, wall, p.model_flops_per_step, f->ms_per_step / 1e3, StepsRun(l.s.common));
      line = ProgressLine(*f);
      if (f->disturbed) {
        cache.Restore();
        absl::StrAppend(&line, " (the GEMM rates it measured are not cached)");
      }
    } else {  // f carries the run's error, or the parse error of its JSON
      cache.Restore();
      l.output->AddFailure(order[i].point, order[i].repetition, std::string(f.status().message()));
      line = absl::StrCat("FAILED: ", f.status().message());
    }
    double left = 0;
    for (size_t j = i + 1; j < order.size(); ++j) {
      left += l.estimate->RunSeconds(order[j].point, l.planned[order[j].point].model_flops_per_step,
                                     StepsRun(l.s.common));
    }
    // The file first, then the line: a run that is reported is in --out (Ctrl-C after the line keeps it).
    if (auto st = harness::WriteFileAtomically(l.s.out, l.output->Json()); !st.ok()) {
      std::fprintf(stderr, "sweep: %s\n", std::string(st.message()).c_str());
      return false;
    }
    std::printf("[%zu/%zu] %s (repetition %d of %d): %s; %s; about %s left\n", i + 1, order.size(),
                p.point.Short().c_str(), order[i].repetition + 1, l.s.repetitions, line.c_str(),
                FormatDuration(wall).c_str(), FormatDuration(left).c_str());
    std::fflush(stdout);
  }
  return true;
}

}  // namespace

int RunSweep(const SweepSettings& s, const std::function<absl::StatusOr<std::string>()>& find_gpt_step) {
  const std::vector<SweepPoint> points = GridPoints(s.axes);
  auto planned = PlanPoints(points, s.common);
  if (!planned.ok()) {
    std::fprintf(stderr, "sweep: %s\n", std::string(planned.status().message()).c_str());
    return harness::kExitFailure;
  }
  TimeEstimate estimate(GuessedRate(s.common));
  const int runnable = PrintPlan(*planned, estimate, s);
  if (runnable == 0) {
    std::fprintf(stderr, "sweep: no point can run (each is refused above)\n");
    return harness::kExitFailure;
  }
  if (s.dry_run) return harness::kExitOk;
  auto exe = find_gpt_step();
  if (!exe.ok()) {
    std::fprintf(stderr, "sweep: %s\n", std::string(exe.status().message()).c_str());
    return harness::kExitFailure;
  }
  std::vector<int> runnable_points;
  for (size_t i = 0; i < planned->size(); ++i) {
    if ((*planned)[i].refused.empty()) runnable_points.push_back(static_cast<int>(i));
  }
  std::vector<SweepRun> order;
  for (const SweepRun& r : RunOrder(static_cast<int>(runnable_points.size()), s.repetitions)) {
    order.push_back(SweepRun{runnable_points[r.point], r.repetition});
  }
  nlohmann::json info = {{"axes", {{"preset", s.axes.presets}, {"batch", s.axes.batches}, {"seq", s.axes.seqs},
                                   {"dtype", s.axes.dtypes}, {"recompute", s.axes.recomputes}}},
                         {"repetitions", s.repetitions}, {"steps", s.common.steps},
                         {"warmup_steps", s.common.warmup_steps}, {"command", s.command}};
  SweepOutput output(*planned, s.repetitions, info);
  // Temporary files beside --out, removed on exit and by SIGINT / SIGTERM (harness/atomic_file.h).
  harness::TempFileGuard json_guard(absl::StrCat(s.out, ".run.", ::getpid(), ".json"));
  std::unique_ptr<harness::TempFileGuard> cache_guard;
  std::string gemm_rates = s.common.ceilings;  // the "cached in the ceilings file"
  if (gemm_rates.empty()) {
    cache_guard = std::make_unique<harness::TempFileGuard>(absl::StrCat(s.out, ".gemm_rates.", ::getpid(), ".json"));
    gemm_rates = cache_guard->path();
  }
  Loop loop{s, *planned, *exe, gemm_rates, json_guard.path(), &output, &estimate};
  if (!RunAll(loop, order)) return harness::kExitFailure;
  for (const std::string& line : SummaryLines(*planned, output)) std::printf("%s\n", line.c_str());
  std::printf("sweep: %d runs written to %s%s\n", output.finished(), s.out.c_str(),
              output.failed() > 0 ? absl::StrCat(", ", output.failed(), " of them failed").c_str() : "");
  return output.failed() > 0 ? harness::kExitFailure : harness::kExitOk;
}

}  // namespace sweep
