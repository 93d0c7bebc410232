// Times full training steps (forward, backward, AdamW) of the CPU model on a fixed random
// batch and prints the median step time, tokens/s and the per-phase split; --profile adds the
// per-op table. The benchmark proper is macro/gpt_step; this is the model's own quick check:
//   bazel run //model:cpu_step_time -- --preset=gpt2 --batch=4 --seq=64
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "model/cpu_model.h"
#include "model/data/batch_source.h"
#include "model/gpt_memory.h"
#include "model/threads.h"

ABSL_FLAG(std::string, preset, "gpt2", "model preset");
ABSL_FLAG(int, batch, 4, "sequences per step (B)");
ABSL_FLAG(int, seq, 64, "tokens per sequence (T)");
ABSL_FLAG(int, warmup, 2, "untimed steps first");
ABSL_FLAG(int, steps, 5, "timed steps");
ABSL_FLAG(int, threads, 0, "OpenMP + OpenBLAS threads (0: leave the default)");
ABSL_FLAG(bool, profile, false, "print time per op");

namespace {

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

int Fail(const absl::Status& st) {
  std::fprintf(stderr, "error: %s\n", std::string(st.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_threads) > 0) model::SetNumThreads(absl::GetFlag(FLAGS_threads));
  const int B = absl::GetFlag(FLAGS_batch), T = absl::GetFlag(FLAGS_seq);
  auto config = model::GptPreset(absl::GetFlag(FLAGS_preset));
  if (!config.ok()) return Fail(config.status());
  auto mem = model::EstimateTrainingMemory(*config, B, T);
  if (!mem.ok()) return Fail(mem.status());
  std::printf("%s, B=%d T=%d, %d threads\n%s\n", model::DescribeConfig(*config).c_str(), B, T,
              model::NumThreads(), mem->Describe().c_str());
  auto m = model::MakeCpuModel(*config, B, T, 1337);
  if (!m.ok()) return Fail(m.status());
  auto source = model::MakeFixedRandomBatchSource(B, T, config->vocab, 1337);
  if (!source.ok()) return Fail(source.status());
  model::Batch batch;
  if (auto st = (*source)->Next(&batch); !st.ok()) return Fail(st);
  model::HostOpTimer timer;
  model::AdamWConfig opt;
  std::vector<double> total, fwd, bwd, upd;
  const int warmup = absl::GetFlag(FLAGS_warmup), steps = absl::GetFlag(FLAGS_steps);
  for (int s = 0; s < warmup + steps; ++s) {
    if (s == warmup && absl::GetFlag(FLAGS_profile)) (*m)->SetOpTimer(&timer);
    const auto t0 = std::chrono::steady_clock::now();
    if (auto st = (*m)->Forward(batch); !st.ok()) return Fail(st);
    const float loss = (*m)->loss();
    const auto t1 = std::chrono::steady_clock::now();
    (*m)->ZeroGrad();
    if (auto st = (*m)->Backward(); !st.ok()) return Fail(st);
    const auto t2 = std::chrono::steady_clock::now();
    if (auto st = (*m)->Update(opt, s + 1); !st.ok()) return Fail(st);
    const auto t3 = std::chrono::steady_clock::now();
    std::printf("step %2d%s: loss %.4f  %.3f s (fwd %.3f, zero+bwd %.3f, adamw %.3f)\n", s + 1,
                s < warmup ? " (warmup)" : "", loss, Seconds(t0, t3), Seconds(t0, t1), Seconds(t1, t2),
                Seconds(t2, t3));
    if (s >= warmup) {
      total.push_back(Seconds(t0, t3));
      fwd.push_back(Seconds(t0, t1));
      bwd.push_back(Seconds(t1, t2));
      upd.push_back(Seconds(t2, t3));
    }
  }
  if (total.empty()) return 0;
  const double med = Median(total);
  std::printf("median step %.3f s (fwd %.3f, zero+bwd %.3f, adamw %.3f): %.1f tokens/s\n", med, Median(fwd),
              Median(bwd), Median(upd), B * T / med);
  if (absl::GetFlag(FLAGS_profile)) {
    std::vector<model::OpTime> ops = timer.Totals();
    std::sort(ops.begin(), ops.end(),
              [](const model::OpTime& a, const model::OpTime& b) { return a.seconds > b.seconds; });
    std::printf("%-36s %10s %8s\n", "op", "ms/step", "calls");
    for (const auto& o : ops) {
      std::printf("%-36s %10.2f %8lld\n", o.op.c_str(), 1e3 * o.seconds / steps,
                  static_cast<long long>(o.calls / steps));
    }
  }
  return 0;
}
