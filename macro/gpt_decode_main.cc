// //macro:gpt_decode — autoregressive generation with a KV cache, measured against the
// bandwidth bound.
//
// Decode sits on the roofline's bandwidth slope (Williams, Waterman and Patterson 2009): every
// new token reads all the weights and its stream's KV cache once, and does about 2 FLOPs per
// weight, so its MFU is a few percent by physics and its speed is bandwidth / bytes per token.
// This binary runs real generations (prefill of --prompt tokens, then --generate greedy decode
// steps per stream, --batch streams in lockstep) on the CPU or CUDA, and reports decode tokens/s
// (new tokens only), prefill tokens/s apart, time per token (median, p90), bytes per token
// (weights + KV cache, which holds the K/V heads only), the bound (bandwidth / bytes per token)
// with the fraction reached, and the MFU. On the CPU the bandwidth is the read memory roof
// (accounting/memory_roofs.h: decode's traffic is reads; the KV cache's few writes count at the
// write_nt roof), measured at start-up with the run's threads (or read from --ceilings). --batch_sweep=64 runs
// B = 1, 2, 4, ... 64: the weights are shared by the streams, so the bound per stream stays near
// flat until compute catches up.
// Every family of model/gpt_config.h decodes (--preset=llama-124m: RMSNorm, RoPE, SwiGLU, a cache
// of the K/V heads).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "accounting/disturbed.h"
#include "accounting/throughput.h"
#include "benchmark/benchmark.h"
#include "comm/launch_check.h"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "macro/gpt_decode_options.h"
#include "macro/cpu_bf16_note.h"
#include "macro/gpt_decode_session.h"
#include "macro/step_flags.h"
#include "model/gemm_info.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

ABSL_FLAG(
    int, prompt, 0,
    "P: prompt tokens per stream, run as one prefill (0: 64 on CPU, 128 on CUDA, at most half the block)");
ABSL_FLAG(int, generate, 0,
          "G: new tokens per stream, one decode step each (0: 64 on CPU, 128 on CUDA, within the block); "
          "prompt + generate <= block");
ABSL_FLAG(std::string, weights, "auto",
          "the Linear weights' storage: auto (the --dtype's), fp32, bf16 (each the same as that --dtype; "
          "bf16 with --dtype=fp32 given: bf16 weight-only, CPU only: a bf16 copy widened to fp32, fp32 "
          "arithmetic, on any CPU; the case name says bf16w), or int8 (CPU only: weight-only, symmetric per "
          "output row with fp32 scales, quantised once at load; widened to fp32 in the register, fp32 "
          "arithmetic; the bytes per token count 1 byte a Linear weight + 4 a row's scale; the case name "
          "says int8w in the dtype's place)");
ABSL_FLAG(int, batch_sweep, 0,
          "run the cases B = 1, 2, 4, ... up to N (at most 64) instead of one case at --batch (0: no sweep)");

namespace macro {
namespace {

constexpr char kMainFile[] = "macro/gpt_decode_main.cc";

FILE* g_log = stdout;

void Log(const std::string& s) {
  std::fputs(s.c_str(), g_log);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

std::string Bytes(double b) {
  if (b >= 1e9) return absl::StrFormat("%.3f GB", b / 1e9);
  if (b >= 1e6) return absl::StrFormat("%.2f MB", b / 1e6);
  if (b >= 1e3) return absl::StrFormat("%.2f kB", b / 1e3);
  return absl::StrFormat("%.0f B", b);
}

struct CaseResult {
  int batch = 0;
  bool ran = false;
  std::vector<Generation> gens;
  DecodeFigures figures;
  accounting::Disturbance disturbance;  // accounting/disturbed.h
};

struct Run {
  DecodeOptions options;
  std::unique_ptr<DecodeSession> session;
  std::vector<CaseResult> results;
};

Run* g_run = nullptr;

void Fail(benchmark::State& state, const absl::Status& st) {
  state.SkipWithError(std::string(st.message()).c_str());
  for (auto _ : state) {
  }
}

void LogGeneration(const char* kind, int i, int n, const Generation& g, int B, int P, int G, double bound) {
  double decode = 0;
  for (double s : g.step_s) decode += s;
  const double tok = B * G / decode;
  Log(absl::StrFormat(
      "gen %2d/%-2d %-7s | prefill %8.2f ms (%9.1f tokens/s) | decode %8.2f ms, %9.1f tokens/s, "
      "%7.3f ms/step | %5.1f%% of the bound",
      i, n, kind, g.prefill_s * 1e3, B * P / g.prefill_s, decode * 1e3, tok, decode / G * 1e3,
      bound > 0 ? 100 * tok / bound : 0));
}

// The timed generations into `gens`, each with the read roof of its minutes where the session
// probes it: before the first and after each, a generation held to the better of the probes on
// either side of it (a slow moment only makes a probe slower). bound: the start-up bound, for
// the log lines.
void TimeGenerations(benchmark::State& state, const DecodeSession& s, model::GptDecoder* decoder,
                     const std::vector<int32_t>& prompt, int B, int P, int G, int timed, double bound,
                     std::vector<Generation>* gens) {
  gens->clear();
  int i = 0;
  double roof_before = s.read_probe() != nullptr ? s.read_probe()->Measure(3) : 0;
  for (auto _ : state) {
    auto g = RunGeneration(decoder, prompt, P, G);
    if (!g.ok()) {
      state.SkipWithError(std::string(g.status().message()).c_str());
      break;
    }
    double decode = 0;
    for (double t : g->step_s) decode += t;
    state.SetIterationTime(decode);
    // The read roof of these minutes, outside the generation's time (gpt_decode_session.h).
    double gen_bound = bound;
    if (micro::ReadRoofProbe* probe = s.read_probe()) {
      const double roof_after = probe->Measure(3);
      g->read_roof = std::max(roof_before, roof_after);
      roof_before = roof_after;
      if (bound > 0) gen_bound = bound * g->read_roof / s.bandwidth();  // the log line's; writes are < 0.1%
    }
    LogGeneration("timed", ++i, timed, *g, B, P, G, gen_bound);
    gens->push_back(std::move(*g));
  }
}

void BM_GptDecode(benchmark::State& state, int case_index) {
  Run* run = g_run;
  CaseResult& r = run->results[case_index];
  const DecodeOptions& o = run->options;
  DecodeSession& s = *run->session;
  const int B = r.batch, P = o.prompt, G = o.generate;
  auto decoder = s.Decoder(B);
  if (!decoder.ok()) return Fail(state, decoder.status());
  const std::vector<int32_t> prompt = DecodePrompt(o.step.config, B, P, o.step.seed);
  // The bound of this case, for the log lines (the summary recomputes it from all generations).
  double bound = 0;
  if (auto c = accounting::DecodeRunCost(model::ToGptShape(o.step.config), s.decode_weights(),
                                         s.bytes_per_kv(), B, P, G);
      c.ok()) {
    bound = DecodeBound(*c, s.bandwidth(), s.write_bandwidth()).value_or(0);
  }
  const model::GptConfig& c = o.step.config;
  Log(absl::StrCat("\ngpt_decode: case B=", B, " (KV cache ", Bytes((*decoder)->cache_bytes()), ": ",
                   c.kv_head_count(), " K/V heads of ", c.head_size(), " for ", c.heads, " query heads)"));
  for (int i = 1; i <= o.warmup_generations; ++i) {
    auto g = RunGeneration(*decoder, prompt, P, G);
    if (!g.ok()) return Fail(state, g.status());
    LogGeneration("warm-up", i, o.warmup_generations, *g, B, P, G, bound);
  }
  TimeGenerations(state, s, *decoder, prompt, B, P, G, o.timed_generations, bound, &r.gens);
  if (r.gens.empty()) return;
  // The peak's second probe, after the timed generations and outside their time (rank_peak.h).
  if (auto probed = s.ProbePeakAgain(); !probed.ok()) {
    state.SkipWithError(std::string(probed.message()).c_str());
    return;
  }
  auto f = ComputeDecodeFigures(o.step.config, s.decode_weights(), s.bytes_per_kv(), B, P, G, r.gens,
                                s.bandwidth(), s.peak().flops_per_s, s.write_bandwidth());
  if (!f.ok()) {
    state.SkipWithError(std::string(f.status().message()).c_str());
    return;
  }
  r.ran = true;
  r.figures = *f;
  bool verified = true;
  for (const Generation& g : r.gens) {
    verified = verified && g.finite;
    for (int32_t t : g.tokens) verified = verified && t >= 0 && t < o.step.config.vocab;
  }
  state.counters["decode_tokens_per_second"] = f->decode_tokens_per_s;
  state.counters["decode_tokens_per_second_per_stream"] = f->decode_tokens_per_s / B;
  state.counters["prefill_tokens_per_second"] = f->prefill_tokens_per_s;
  state.counters["ms_per_token_median"] = f->step_ms_median;
  state.counters["ms_per_token_p90"] = f->step_ms_p90;
  state.counters["bytes_per_token"] = f->bytes_per_token;
  state.counters["weight_bytes_per_token"] = f->weight_bytes_per_token;
  state.counters["kv_bytes_per_token"] = f->kv_bytes_per_token;
  state.counters["bandwidth"] = f->bandwidth;
  if (f->write_bandwidth > 0) {
    state.counters["write_bandwidth"] = f->write_bandwidth;
    state.counters["kv_write_bytes_per_token"] = f->kv_write_bytes_per_token;
  }
  state.counters["bound_tokens_per_second"] = f->bound_tokens_per_s;
  state.counters["bound_tokens_per_second_per_stream"] = f->bound_tokens_per_s / B;
  state.counters["bound_fraction"] = f->bound_fraction;
  if (f->roof_probes > 0) {
    state.counters["bound_fraction_min"] = f->bound_fraction_min;
    state.counters["bound_fraction_max"] = f->bound_fraction_max;
  }
  state.counters["achieved_bytes_per_second"] = f->achieved_bytes_per_s;
  state.counters["flops_per_token"] = f->flops_per_token;
  state.counters["peak_flops"] = f->peak_flops;
  state.counters["mfu"] = f->mfu;
  state.counters["batch"] = B;
  state.counters["verified"] = verified ? 1 : 0;
  // Bytes/s or MFU more than 3% above their ceilings, or peak probes 10% apart.
  r.disturbance = accounting::JudgeDisturbance(
      {{"bandwidth bound", f->achieved_bytes_per_s, f->bandwidth, "B/s"},
       {"MFU", f->flops_per_token * f->decode_tokens_per_s, f->peak_flops}},
      s.probes());
  state.counters["disturbed"] = r.disturbance.disturbed ? 1 : 0;
  if (s.probes().both()) {
    state.counters["peak_probe_before"] = s.probes().before;
    state.counters["peak_probe_after"] = s.probes().after;
  }
  state.SetLabel(accounting::DisturbedLabel(
      r.disturbance, absl::StrCat(o.step.config.name, " decode, ", model::WeightFormatName(o.weights),
                                  " weights; bandwidth: ", s.bandwidth_source())));
}

// The summary's account of a weight's bytes: "4 bytes per weight", or a weight-only format's
// bytes (and int8's scales).
std::string WeightBytesText(const DecodeOptions& o, const DecodeSession& s) {
  const accounting::DecodeWeights w = s.decode_weights();
  if (!w.weight_only) {
    return absl::StrCat(model::WeightFormatName(o.weights), " weights, ", absl::StrFormat("%g", s.bytes_per_param()),
                        " bytes per weight");
  }
  const accounting::GptShape shape = model::ToGptShape(o.step.config);
  return absl::StrCat(model::WeightFormatName(o.weights), " weights: ", absl::StrFormat("%g", w.bytes_per_param),
                      w.bytes_per_param == 1 ? " byte" : " bytes", " per Linear weight (",
                      accounting::MatmulWeightCount(shape), ")",
                      w.scaled ? absl::StrCat(" + a 4-byte fp32 scale per output row (",
                                              accounting::MatmulOutputRows(shape), " rows)")
                               : "",
                      ", the norms, biases and the token's embedding rows in fp32");
}

void PrintSummary(const Run& run, const CaseResult& r) {
  const DecodeOptions& o = run.options;
  const DecodeSession& s = *run.session;
  const DecodeFigures& f = r.figures;
  const int B = r.batch, P = o.prompt, G = o.generate;
  Log(absl::StrCat("\n== summary: BM_GptDecode/", o.CaseName(B), ", ", f.generations,
                   " timed generations after ", o.warmup_generations, " warm-up",
                   r.disturbance.disturbed ? absl::StrCat(" | DISTURBED: ", r.disturbance.reason) : ""));
  accounting::TokenCount num;
  num.tokens = static_cast<double>(B) * G * f.generations;
  accounting::TimedPhases den;  // compute only: each step's Step + greedy pick
  auto tp = accounting::GenerationThroughput::Make(num, f.decode_s, den);
  if (tp.ok()) Log(absl::StrCat("decode        ", tp->ToString()));
  Log(absl::StrFormat(
      "              = %d generations x B=%d streams x G=%d new tokens / %.3f s of decode steps "
      "(step + greedy pick; prefill apart)",
      f.generations, B, G, f.decode_s));
  Log(absl::StrFormat("per stream    %.1f tokens/s", f.decode_tokens_per_s / B));
  Log(absl::StrFormat("time/token    median %.3f ms, p90 %.3f ms (one decode step: one new token per stream)",
                      f.step_ms_median, f.step_ms_p90));
  Log(absl::StrFormat(
      "prefill       %.1f tokens/s (%d x B=%d x P=%d prompt tokens / %.3f s), apart from decode",
      f.prefill_tokens_per_s, f.generations, B, P, f.prefill_s));
  // The cache holds the K/V heads only (grouped-query attention: KV < H heads).
  const model::GptConfig& c = o.step.config;
  Log(absl::StrCat(
      "bytes/token   ", Bytes(f.bytes_per_token), " = weights ", Bytes(f.weight_bytes_per_token), " (",
      Bytes(f.cost.weight_bytes / G), " per step, shared by B=", B, ") + KV cache ",
      Bytes(f.kv_bytes_per_token), " (K and V of KV=", c.kv_head_count(), " heads x hd=", c.head_size(),
      " x L=", c.layers, " layers per position: ", Bytes(2.0 * c.layers * c.kv_width() * s.bytes_per_kv()),
      "; positions ", P, "..", P + G - 1, ", mean); ", WeightBytesText(o, s), ", ",
      absl::StrFormat("%g", s.bytes_per_kv()), " per cache element"));
  Log(f.roof_probes > 0
          ? absl::StrCat("bandwidth     ", Bytes(f.bandwidth), "/s: the median of the read roof probed after each of the ",
                         f.roof_probes, " timed generations (best of 3 passes over ", Bytes(s.read_probe()->bytes()),
                         "); at start-up ", Bytes(s.bandwidth()), "/s: ", s.bandwidth_source())
          : absl::StrCat("bandwidth     ", Bytes(f.bandwidth), "/s: ", s.bandwidth_source()));
  Log(f.write_bandwidth > 0
          ? absl::StrFormat("bound         %.1f tokens/s (%.1f per stream) = 1 / (bytes per token / bandwidth + the "
                            "cache's %s written per token / %s/s); reached %.1f%%",
                            f.bound_tokens_per_s, f.bound_tokens_per_s / B, Bytes(f.kv_write_bytes_per_token),
                            Bytes(f.write_bandwidth), 100 * f.bound_fraction)
          : absl::StrFormat("bound         %.1f tokens/s (%.1f per stream) = bandwidth / bytes per token; reached %.1f%%",
                            f.bound_tokens_per_s, f.bound_tokens_per_s / B, 100 * f.bound_fraction));
  if (f.roof_probes > 0) {
    Log(absl::StrFormat("              each generation against the bound at its own probe: %.1f%% median (%.1f%% to "
                        "%.1f%%), the figure above",
                        100 * f.bound_fraction, 100 * f.bound_fraction_min, 100 * f.bound_fraction_max));
  }
  if (o.step.device == "cpu") {
    const std::string note = WeightsInCacheNote(f.cost.weight_bytes / G, sysinfo::ReadCpuInfo().l3_bytes);
    if (!note.empty()) Log("cache         " + note);
  }
  Log(absl::StrCat("achieved      ", Bytes(f.achieved_bytes_per_s), "/s read (bytes per token x tokens/s)"));
  Log(absl::StrFormat(
      "MFU           %.2f%% = %.4g FLOPs/token (2N + 4*L*H*hd*(pos+1)) x %.1f tokens/s / peak %.4g FLOP/s",
      100 * f.mfu, f.flops_per_token, f.decode_tokens_per_s, f.peak_flops));
  Log(absl::StrCat("peak          ", s.peak().source));
}

void PrintSweep(const Run& run) {
  std::vector<const CaseResult*> done;
  for (const CaseResult& r : run.results) {
    if (r.ran) done.push_back(&r);
  }
  if (done.size() < 2) return;
  Log("\n== batch sweep: the weights are read once per step for all B streams, so the bound per stream "
      "stays near flat until compute catches up (the MFU column)");
  Log(absl::StrFormat("%5s %14s %12s %16s %9s %11s %7s", "B", "tokens/s", "per stream", "bound/stream",
                      "reached", "ms/token", "MFU"));
  for (const CaseResult* r : done) {
    const DecodeFigures& f = r->figures;
    Log(absl::StrFormat("%5d %14.1f %12.1f %16.1f %8.1f%% %11.3f %6.2f%%", r->batch, f.decode_tokens_per_s,
                        f.decode_tokens_per_s / r->batch, f.bound_tokens_per_s / r->batch,
                        100 * f.bound_fraction, f.step_ms_median, 100 * f.mfu));
  }
}

// The weights' format and the GEMM library at start-up (CPU), and the bf16 note for fp32 runs.
void LogWeightsAndGemms(const DecodeOptions& o, const DecodeSession& s) {
  if (o.weights == model::WeightFormat::kInt8) {
    Log(absl::StrCat("gpt_decode: int8 weights on the CPU: every Linear weight and the LM head quantised once "
                     "at load (symmetric, an fp32 scale per output row); a step's few rows: matrix-vector "
                     "products widening each int8 weight to fp32 in the register; the prompt: dequantised "
                     "tiles through the fp32 GEMM (--cpu_gemm=",
                     model::CpuGemmBackendName(o.step.cpu_gemm), "); embeddings, norms, RoPE, attention "
                     "and the KV cache in fp32"));
  } else if (o.step.device == "cpu" && o.weights == model::WeightFormat::kBf16) {
    const bool bf16_math = o.step.dtype == accounting::Dtype::kBf16;
    Log(absl::StrCat("gpt_decode: bf16 weights on the CPU: the Linear layers read a bf16 copy of their weights (a "
                     "step's few rows: matrix-vector products widening each weight to fp32; the prompt: ",
                     bf16_math ? "bf16 GEMMs on oneDNN"
                               : absl::StrCat("widened tiles through the fp32 GEMM (--cpu_gemm=",
                                              model::CpuGemmBackendName(o.step.cpu_gemm), ")"),
                     "); embeddings, norms, RoPE, attention and the KV cache in fp32"));
  } else if (o.step.device == "cpu") {
    Log(absl::StrCat("gpt_decode: GEMM --cpu_gemm=", model::CpuGemmBackendName(o.step.cpu_gemm), ": ",
                     model::CpuGemmInfo(o.step.cpu_gemm).ToString()));
  }
  if (o.step.device == "cpu" && o.weights == model::WeightFormat::kFp32) {
    const std::string note = CpuBf16Note("gpt_decode", o.step.dtype, s.peak().flops_per_s);
    if (!note.empty()) Log(note);
  }
}

constexpr char kUsage[] =
    "gpt_decode: generation with a KV cache (GPT-2 or the Llama family: --preset=llama-124m), against the\n"
    "bandwidth bound. The KV cache holds the K/V heads only (grouped-query attention).\n"
    "On the CPU the bound's bandwidth is the read memory roof (decode's traffic is reads: a sum over\n"
    "DRAM-sized arrays, 8 streams a thread, each prefetching 2 KiB ahead as the matrix-vector loops do),\n"
    "and the cache's writes count at the write_nt roof: a\n"
    "--ceilings file's memory_roofs_bytes_per_s, else measured at start-up (best of 6 interleaved\n"
    "trials, about 0.5 s) and then probed again before the first timed generation and after each\n"
    "(best of 3 passes over STREAM's array size, about 15 ms, outside the generations' time): each\n"
    "generation is held to the bound at the better of the probes on either side of it, and\n"
    "bound_fraction is the median over the generations (bound_fraction_min/_max in the\n"
    "JSON), the bandwidth the probes' median. On CUDA: a --ceilings file's copy bandwidth, else the\n"
    "datasheet's.\n"
    "\n"
    "  bazel run //macro:gpt_decode                         defaults for this machine (said at start)\n"
    "  bazel run //macro:gpt_decode -- --prompt=128 --generate=128 --batch=4\n"
    "  bazel run //macro:gpt_decode -- --batch_sweep=64      B = 1, 2, 4, ... 64\n"
    "  bazel run //macro:gpt_decode -- --weights=int8        int8 Linear weights (CPU): ~4x fewer bytes a token\n"
    "  bazel run //macro:gpt_decode -- --weights=bf16 --dtype=fp32   bf16 weight-only (CPU, any ISA): half the bytes\n"
    "  bazel run //macro:gpt_decode -- --benchmark_format=json --benchmark_out=/tmp/decode.json\n"
    "\n"
    "Each timed iteration is one generation: a prefill of --prompt tokens per stream (timed apart),\n"
    "then --generate decode steps of one token per stream (greedy); the iteration's time is the\n"
    "decode steps'. --warmup_steps and --steps count generations. The model flags are gpt_step's.\n"
    "\n"
    "A FMA peak measured at start-up is probed again after each case's timed generations, the best\n"
    "taken. DISTURBED: a case whose bytes/s exceed the bandwidth of its bound, whose MFU exceeds\n"
    "103%, whose peak probes differ by more than 10%, or whose best probe, start-up STREAM copy or\n"
    "read roof is\n"
    "more than 15% below this machine's record (MLBENCH_PEAK_RECORD; see gpt_step --help) says so in\n"
    "its summary's first line; its\n"
    "JSON has disturbed=1 and a label 'DISTURBED: <reason>', refused by tools/gate and tools/bench.\n"
    "MLBENCH_TEST_AFTER_PROBE_SCALE=X (environment, tests) multiplies the after-probe by X.\n"
    "\n"
    "Exit status: 0 success; 1 command line not understood (unknown flag, unparsable value);\n"
    "2 bad input or broken measurement (value out of range, e.g. --prompt + --generate > block,\n"
    "--batch=0, an unknown --dtype or --weights, --weights=int8 on CUDA; a failed or non-finite\n"
    "generation; a filter that selects nothing;\n"
    "an output that could not be written, e.g. --benchmark_out on a full disk).\n"
    "--benchmark_out is written once the run ends (temporary file, then rename; a device or\n"
    "/dev/stdout in place): Ctrl-C or a failed write leaves a previous file as it was.";

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h") ||
        !std::strcmp(argv[i], "--helpfull")) {
      return true;
    }
  }
  return false;
}

void PrintHelp() {
  std::printf("%s\n\nFlags (train-step-only flags of gpt_step are refused: %s):\n", kUsage,
              absl::StrJoin(TrainOnlyFlags(), ", ").c_str());
  std::map<std::string, absl::CommandLineFlag*> mine;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const bool ours = absl::StrContains(flag->Filename(), kMainFile);
    const bool shared = absl::StrContains(flag->Filename(), kStepFlagsFile);
    bool train_only = false;
    for (const std::string& t : TrainOnlyFlags()) train_only = train_only || t == name;
    if (ours || (shared && !train_only)) mine[std::string(name)] = flag;
  }
  for (const auto& [name, flag] : mine) {
    std::string help = flag->Help();
    if (name == "batch") help = "B: streams decoded in lockstep (default 1); 0 is an error";
    if (name == "warmup_steps") help = "untimed generations first per case (-1: 1)";
    if (name == "steps") help = "timed generations per case (-1: 10 on CUDA, 5 on CPU)";
    if (name == "dtype")
      help = "auto (bf16 on CUDA, fp32 on CPU), fp32 or bf16: on CUDA the weights' and the KV cache's storage; "
             "on the CPU the Linear weights' (a bf16 copy; the KV cache stays fp32; MFU against the bf16 peak); "
             "with --weights=int8, fp32 or auto (int8 computes in fp32)";
    std::printf("  --%s (default: \"%s\")\n      %s\n", name.c_str(), flag->DefaultValue().c_str(),
                help.c_str());
  }
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  using namespace macro;
  absl::SetProgramUsageMessage(kUsage);
  if (WantsHelp(argc, argv)) {
    PrintHelp();
    return harness::kExitOk;
  }
  const harness::StdoutUse stdout_use = harness::ReadStdoutUse(argc, argv);
  const bool listing = stdout_use.listing;
  if (stdout_use.ProgressToStderr()) g_log = stderr;
  // A relative --benchmark_out: the user's folder; an unwritable one: an error now, not after the run.
  // Taken over from Google Benchmark: written at the end through harness/atomic_file.h.
  if (absl::StatusOr<std::string> out = harness::ResolveBenchmarkOut("gpt_decode", &argc, argv); !out.ok()) {
    return harness::Fail("gpt_decode", out.status());
  }
  benchmark::Initialize(&argc, argv);
  RawDecodeFlags raw;
  raw.given = GivenFlags(argc, argv);
  absl::ParseCommandLine(argc, argv);  // unknown flags: an error naming them, exit 1
  raw.prompt = absl::GetFlag(FLAGS_prompt);
  raw.generate = absl::GetFlag(FLAGS_generate);
  raw.batch_sweep = absl::GetFlag(FLAGS_batch_sweep);
  raw.weights = absl::GetFlag(FLAGS_weights);

  // Not an MPI program: several copies under one launcher would overwrite each other's files.
  if (auto st = comm::CheckNotMultiProcessLaunch("gpt_decode", std::getenv); !st.ok()) {
    return harness::Fail("gpt_decode", st);
  }
  auto options = ResolveDecodeOptions(ReadStepFlags(), raw, sysinfo::ProbeCuda());
  if (!options.ok()) {
    return harness::Fail("gpt_decode", options.status());
  }
  Run run;
  run.options = *options;
  g_run = &run;
  const DecodeOptions& o = run.options;
  for (const std::string& c : o.choices) Log(absl::StrCat("gpt_decode: ", c));
  for (size_t i = 0; i < o.batches.size(); ++i) {
    run.results.emplace_back();
    run.results.back().batch = o.batches[i];
    const std::string name = absl::StrCat("BM_GptDecode/", o.CaseName(o.batches[i]));
    benchmark::RegisterBenchmark(name.c_str(),
                                 [i](benchmark::State& st) { BM_GptDecode(st, static_cast<int>(i)); })
        ->Iterations(o.timed_generations)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  harness::AddRunContext();
  const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  benchmark::AddCustomContext("mlbench_cpu", cpu.model);
  benchmark::AddCustomContext("mlbench_device", o.step.device);
  benchmark::AddCustomContext("mlbench_model", model::DescribeConfig(o.step.config));
  benchmark::AddCustomContext("mlbench_weights", model::WeightFormatName(o.weights));
  if (o.step.device == "cpu")
    benchmark::AddCustomContext("mlbench_gemm", model::CpuGemmInfo(o.step.cpu_gemm).ToJson());

  if (!listing) {
    Log(absl::StrCat("gpt_decode: ", model::DescribeConfig(o.step.config), " on ", o.step.device,
                     ", P=", o.prompt, " prompt + G=", o.generate, " new tokens per stream"));
    auto session = DecodeSession::Create(o);
    if (!session.ok()) {
      return harness::Fail("gpt_decode", session.status());
    }
    run.session = std::move(*session);
    const DecodeSession& s = *run.session;
    Log(absl::StrCat("gpt_decode: ", s.num_params(), " parameters on ", s.device_name(),
                     o.step.device == "cpu" ? absl::StrCat(", ", model::NumThreads(), " threads") : ""));
    Log(absl::StrFormat("gpt_decode: bandwidth %.4g B/s (%s)", s.bandwidth(), s.bandwidth_source()));
    Log(absl::StrFormat("gpt_decode: peak %.4g FLOP/s (%s)", s.peak().flops_per_s, s.peak().source));
    LogWeightsAndGemms(o, s);
    for (const std::string& line : s.gemm_choices()) Log(absl::StrCat("gpt_decode: GEMM choice: ", line));
    benchmark::AddCustomContext("mlbench_decode_bandwidth",
                                absl::StrFormat("%.6g B/s: %s", s.bandwidth(), s.bandwidth_source()));
  }
  harness::RunOutcome outcome;
  const int rc = harness::RunSelectedBenchmarks("gpt_decode", &outcome);
  if (rc != harness::kExitOk || listing) return rc;
  for (const CaseResult& r : run.results) {
    if (r.ran) PrintSummary(run, r);
  }
  PrintSweep(run);
  benchmark::Shutdown();
  return harness::kExitOk;
}
