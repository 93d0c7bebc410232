// //macro:gpt_serve — GPT generation served under a request load, with continuous batching, on
// the CPU: time to first token (TTFT) and time per output token (TPOT) as MLPerf Inference's
// server scenario and vLLM's benchmark_serving report them.
//
// Requests arrive as a Poisson process at --rate (or all at once, --rate=inf) from --seed, with
// prompt and output lengths uniform over --prompt and --generate (serve_load.h). The scheduler
// (serve_scheduler.h: prefill as its own step, first come first served, before the next decode
// step; a finished request frees its slot at once) runs them on one CpuDecoder of --max_batch
// slots, each at its own position (model/cpu_decoder.h), greedy tokens. The clock is the real
// steady clock: an idle server waits for the next arrival. Reported: TTFT, TPOT, queueing time
// and the prefill's compute as p50/p90/p99/mean, requests/s and output tokens/s, the decode batch
// sizes as a histogram and a timeline; --ttft_limit_ms/--tpot_limit_ms judge the p99s PASS or
// FAIL; --find_max_rate bisects for the highest rate that meets them; --compare_serial runs the
// same requests one at a time for the throughput ratio.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
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
#include "harness/atomic_file.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/json_doc.h"
#include "harness/user_path.h"
#include "macro/gpt_decode_options.h"
#include "macro/gpt_serve_options.h"
#include "macro/serve_find.h"
#include "macro/serve_load.h"
#include "macro/serve_report.h"
#include "macro/serve_session.h"
#include "macro/step_flags.h"
#include "model/cpu_gemm_backend.h"
#include "model/gemm_info.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

ABSL_FLAG(int, requests, 200, "requests in the load (each trial's, with --find_max_rate)");
ABSL_FLAG(std::string, rate, "inf",
          "arrival rate in requests/s, a Poisson process from --seed; inf: every request at t=0 (a saturating load)");
ABSL_FLAG(std::string, prompt, "16:128", "prompt lengths A:B, uniform and inclusive, or one number");
ABSL_FLAG(std::string, generate, "16:64",
          "output lengths A:B (tokens per request, the first from the prefill), uniform and inclusive, or one "
          "number; longest prompt + longest output <= the block size");
ABSL_FLAG(int, max_batch, 8, "slots: requests served at once (continuous batching), 1 to 256");
ABSL_FLAG(double, ttft_limit_ms, 0, "PASS/FAIL the TTFT p99 against this limit in ms (0: none)");
ABSL_FLAG(double, tpot_limit_ms, 0, "PASS/FAIL the TPOT p99 against this limit in ms (0: none)");
ABSL_FLAG(bool, find_max_rate, false,
          "bisect for the highest rate whose run meets --ttft_limit_ms/--tpot_limit_ms: the rates of "
          "--find_range, --requests requests a trial, each stopped past --trial_max_s (a FAIL)");
ABSL_FLAG(std::string, find_range, "0.25:16", "--find_max_rate's LOW:HIGH requests/s");
ABSL_FLAG(int, find_steps, 5, "--find_max_rate's bisections after the two bounds (1 to 20)");
ABSL_FLAG(double, trial_max_s, 300,
          "seconds a run may take (every run: the main one, --compare_serial's, each trial); past it the run "
          "stops and its figures cover the finished requests");
ABSL_FLAG(bool, compare_serial, false,
          "also run the same requests one at a time (one slot, same arrivals) and print both output tokens/s "
          "and their ratio");
ABSL_FLAG(std::string, weights, "fp32",
          "the Linear weights' storage (model/weight_format.h): fp32, bf16 or int8 (weight-only: widened to fp32 in "
          "the register, fp32 arithmetic, on any CPU)");
ABSL_FLAG(std::string, out, "",
          "write the run as JSON (per request: arrival, queue, TTFT, TPOT, tokens; per step: start, duration, "
          "kind, batch) to this file (temporary file, then rename); relative to where bazel run started");
ABSL_FLAG(double, progress_s, 10, "seconds between progress lines during a run (0: none)");

namespace macro {
namespace {

constexpr char kMainFile[] = "macro/gpt_serve_main.cc";
constexpr char kTool[] = "gpt_serve";
constexpr int kTimelineColumns = 60;

void Log(const std::string& s) {
  std::fputs(s.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

constexpr char kUsage[] =
    "gpt_serve: GPT generation under a request load on the CPU, with continuous batching: TTFT and TPOT\n"
    "percentiles (MLPerf Inference's server scenario, vLLM's benchmark_serving).\n"
    "\n"
    "  bazel run //macro:gpt_serve -- --preset=gpt2 --requests=200 --max_batch=8 --prompt=16:128 --generate=16:64\n"
    "  bazel run //macro:gpt_serve -- --rate=2 --ttft_limit_ms=2000 --tpot_limit_ms=200\n"
    "  bazel run //macro:gpt_serve -- --compare_serial          the same requests one at a time, for the ratio\n"
    "  bazel run //macro:gpt_serve -- --find_max_rate --requests=50 --ttft_limit_ms=3000 --find_range=0.25:4\n"
    "\n"
    "Requests arrive as a Poisson process at --rate requests/s from --seed (--rate=inf: all at t=0), with\n"
    "prompt and output lengths uniform over --prompt and --generate and random prompt tokens. Up to\n"
    "--max_batch run at once, one a slot of the decoder, each at its own position. Scheduling: a waiting\n"
    "request's prefill is a step of its own, first come first served, taken before the next decode step\n"
    "while a slot is free (vLLM's scheduler before chunked prefill): slots stay full, at the price of\n"
    "stalls in the running requests' TPOT. A decode step gives every running request one token (greedy);\n"
    "a request that has its tokens frees its slot at once. The clock is the steady clock: an idle server\n"
    "waits for the next arrival.\n"
    "\n"
    "TTFT: arrival to the end of the request's prefill (its first token), = queue (waiting for a slot)\n"
    "+ prefill. TPOT: (last token - first token) / (output - 1), for outputs of 2 tokens or more.\n"
    "Percentiles: linear interpolation (numpy's default). Throughput: finished requests and output tokens\n"
    "over the time from t=0 to the last step. With limits, each p99 prints PASS or FAIL (a run that did\n"
    "not finish every request within --trial_max_s FAILs); the exit status stays 0.\n"
    "--find_max_rate: the low bound of --find_range, then the high one, then --find_steps bisections; it\n"
    "ends with the highest rate that passed and its p99s, within (2 + --find_steps) x --trial_max_s.\n"
    "The model flags are gpt_step's (--preset, --seed: the parameters as gpt_decode makes them, --threads,\n"
    "--cpu_gemm); the CPU only (--device=cuda is refused: the CUDA decoder has no slots).\n"
    "\n"
    "Exit status: 0 success (whatever the PASS/FAIL verdicts); 1 command line not understood (unknown flag,\n"
    "unparsable value); 2 bad input or a broken run (a value out of range, --weights this machine or build\n"
    "cannot run, non-finite logits, an --out that cannot be written).";

void PrintHelp() {
  std::printf("%s\n\nFlags (gpt_step's other flags are refused: %s):\n", kUsage,
              absl::StrJoin(ServeRefusedFlags(), ", ").c_str());
  std::map<std::string, absl::CommandLineFlag*> mine;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const bool ours = absl::StrContains(flag->Filename(), kMainFile);
    const bool shared = absl::StrContains(flag->Filename(), kStepFlagsFile);
    bool refused = false;
    for (const std::string& t : ServeRefusedFlags()) refused = refused || t == name;
    if (ours || (shared && !refused)) mine[std::string(name)] = flag;
  }
  for (const auto& [name, flag] : mine) {
    std::string help = flag->Help();
    if (name == "device") help = "auto or cpu: gpt_serve runs on the CPU (cuda is refused)";
    std::printf("  --%s (default: \"%s\")\n      %s\n", name.c_str(), flag->DefaultValue().c_str(), help.c_str());
  }
}

RawServeFlags ReadServeFlags(int argc, char** argv) {
  RawServeFlags f;
  f.requests = absl::GetFlag(FLAGS_requests);
  f.rate = absl::GetFlag(FLAGS_rate);
  f.prompt = absl::GetFlag(FLAGS_prompt);
  f.generate = absl::GetFlag(FLAGS_generate);
  f.max_batch = absl::GetFlag(FLAGS_max_batch);
  f.ttft_limit_ms = absl::GetFlag(FLAGS_ttft_limit_ms);
  f.tpot_limit_ms = absl::GetFlag(FLAGS_tpot_limit_ms);
  f.find_max_rate = absl::GetFlag(FLAGS_find_max_rate);
  f.find_range = absl::GetFlag(FLAGS_find_range);
  f.find_steps = absl::GetFlag(FLAGS_find_steps);
  f.trial_max_s = absl::GetFlag(FLAGS_trial_max_s);
  f.compare_serial = absl::GetFlag(FLAGS_compare_serial);
  f.weights = absl::GetFlag(FLAGS_weights);
  f.out = harness::UserPath(absl::GetFlag(FLAGS_out));
  f.progress_s = absl::GetFlag(FLAGS_progress_s);
  f.given = GivenFlags(argc, argv);
  return f;
}

// Progress lines at most every progress_s seconds of a run.
std::function<void(const ServeProgress&)> ProgressPrinter(const std::string& what, double progress_s) {
  if (!(progress_s > 0)) return nullptr;
  auto next = std::make_shared<double>(progress_s);
  return [=](const ServeProgress& p) {
    if (p.now_s < *next) return;
    *next = p.now_s + progress_s;
    Log(absl::StrFormat("  %s t=%.1f s: %d/%d finished, %d running, %d waiting", what, p.now_s, p.finished, p.total,
                        p.running, p.waiting));
  };
}

// One run of the load at `rate` with `slots` slots: its summary and verdicts.
absl::StatusOr<RateTrial> RunAt(ServeSession* session, const ServeOptions& o, double rate, int slots,
                                const std::string& what, nlohmann::ordered_json* json) {
  const ServeLoad load = MakeServeLoad(o.requests, rate, o.prompt, o.generate, o.step.config.vocab, o.step.seed);
  auto run = session->Run(load, slots, o.trial_max_s, ProgressPrinter(what, o.progress_s));
  if (!run.ok()) return run.status();
  RateTrial t;
  t.rate = rate;
  t.summary = Summarize(run->scheduler, kTimelineColumns);
  t.checks = CheckLimits(t.summary, o.ttft_limit_ms, o.tpot_limit_ms);
  t.pass = AllPass(t.checks) && !run->stopped;
  t.stopped = run->stopped;
  t.wall_s = run->wall_s;
  if (run->stopped) Log(absl::StrCat("  ", what, " stopped: ", run->stop_reason, " (--trial_max_s)"));
  if (json != nullptr) *json = RunJson(run->scheduler, t.summary);
  return t;
}

void PrintRun(const std::string& title, const RateTrial& t, int max_batch) {
  Log(absl::StrCat("\n== ", title));
  for (const std::string& line : SummaryLines(t.summary, max_batch)) Log(line);
  for (const LimitCheck& c : t.checks) Log(c.Line());
}

nlohmann::ordered_json TrialJson(const RateTrial& t) {
  nlohmann::ordered_json j;
  j["rate"] = RateName(t.rate);
  j["pass"] = t.pass;
  j["stopped"] = t.stopped;
  j["wall_s"] = t.wall_s;
  j["summary"] = SummaryJson(t.summary);
  return j;
}

absl::Status FindRate(ServeSession* session, const ServeOptions& o, nlohmann::ordered_json* json) {
  Log(absl::StrFormat("gpt_serve: --find_max_rate over %g to %g requests/s: %d requests a trial, at most %d trials "
                      "of at most %g s each (--trial_max_s)",
                      o.find_low, o.find_high, o.requests, 2 + o.find_steps, o.trial_max_s));
  auto found = FindMaxRate(o.find_low, o.find_high, o.find_steps, [&](double rate) -> absl::StatusOr<RateTrial> {
    auto t = RunAt(session, o, rate, o.max_batch, absl::StrFormat("rate %g", rate), nullptr);
    if (!t.ok()) return t.status();
    std::string checks;
    for (const LimitCheck& c : t->checks) absl::StrAppend(&checks, " | ", c.Line());
    Log(absl::StrFormat("trial at %g requests/s: %s in %.1f s, %d/%d finished, %.1f output tokens/s%s", rate,
                        t->pass ? "PASS" : "FAIL", t->wall_s, t->summary.finished, t->summary.requests,
                        t->summary.output_tokens_per_s, checks));
    return t;
  });
  if (!found.ok()) return found.status();
  double total = 0;
  nlohmann::ordered_json trials = nlohmann::ordered_json::array();
  for (const RateTrial& t : found->trials) {
    total += t.wall_s;
    trials.push_back(TrialJson(t));
  }
  (*json)["find_max_rate"] = {{"low", o.find_low}, {"high", o.find_high}, {"requests_per_trial", o.requests},
                              {"found", found->found}, {"rate", found->rate}, {"trials", trials}};
  if (const RateTrial* best = found->best()) {
    PrintRun(absl::StrFormat("the highest rate found that meets the limits: %g requests/s (%s), %d trials of %d "
                             "requests in %.1f s",
                             found->rate,
                             found->failed_rate > 0 ? absl::StrFormat("%g failed", found->failed_rate)
                                                    : std::string("the high bound: raise --find_range for more"),
                             static_cast<int>(found->trials.size()), o.requests, total),
             *best, o.max_batch);
  } else {
    Log(absl::StrFormat("\n== no rate found: the low bound %g requests/s already FAILs the limits (%.1f s); lower "
                        "--find_range",
                        o.find_low, total));
  }
  return absl::OkStatus();
}

absl::Status RunLoad(ServeSession* session, const ServeOptions& o, nlohmann::ordered_json* json) {
  nlohmann::ordered_json run_json;
  auto t = RunAt(session, o, o.rate, o.max_batch, "batched", &run_json);
  if (!t.ok()) return t.status();
  PrintRun(absl::StrFormat("continuous batching, max_batch=%d, rate %s: %d requests in %.1f s", o.max_batch,
                           RateName(o.rate), o.requests, t->wall_s),
           *t, o.max_batch);
  (*json)["run"] = std::move(run_json);
  if (!o.compare_serial) return absl::OkStatus();
  auto serial = RunAt(session, o, o.rate, 1, "serial", nullptr);
  if (!serial.ok()) return serial.status();
  const ServeSummary& a = t->summary;
  const ServeSummary& b = serial->summary;
  Log(absl::StrFormat("\n== --compare_serial: the same %d requests one at a time (one slot, the same arrivals)",
                      o.requests));
  Log(absl::StrFormat("serial      %.1f output tokens/s, %.2f requests/s, TTFT p50 %.1f ms, TPOT p50 %.1f ms (%d/%d "
                      "finished in %.1f s)",
                      b.output_tokens_per_s, b.requests_per_s, b.ttft_ms.p50, b.tpot_ms.p50, b.finished, b.requests,
                      serial->wall_s));
  // Below saturation both runs follow the arrivals and the ratio tends to 1: --rate=inf measures capacity.
  Log(absl::StrFormat("batched     %.1f output tokens/s: %.2fx the serial%s", a.output_tokens_per_s,
                      a.output_tokens_per_s / b.output_tokens_per_s,
                      serial->stopped ? " (the serial run was stopped by --trial_max_s: its rate covers what it finished)"
                                      : ""));
  (*json)["serial"] = SummaryJson(b);
  (*json)["batched_over_serial"] = a.output_tokens_per_s / b.output_tokens_per_s;
  return absl::OkStatus();
}

nlohmann::ordered_json OptionsJson(const ServeOptions& o) {
  return {{"model", model::DescribeConfig(o.step.config)},
          {"cpu", sysinfo::ReadCpuInfo().model},
          {"weights", model::WeightFormatName(o.weights)},
          {"requests", o.requests},
          {"rate", RateName(o.rate)},
          {"prompt", o.prompt.ToString()},
          {"generate", o.generate.ToString()},
          {"max_batch", o.max_batch},
          {"seed", o.step.seed},
          {"ttft_limit_ms", o.ttft_limit_ms},
          {"tpot_limit_ms", o.tpot_limit_ms}};
}

int Main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);  // unknown flags: Abseil's error naming them, exit 1
  auto options = ResolveServeOptions(ReadStepFlags(), ReadServeFlags(argc, argv), sysinfo::ProbeCuda());
  if (!options.ok()) return harness::Fail(kTool, options.status());
  const ServeOptions& o = *options;
  if (!o.out.empty()) {
    if (absl::Status st = harness::CheckWritable(o.out); !st.ok()) {
      return harness::Fail(kTool, absl::InvalidArgumentError(absl::StrCat("--out: ", st.message())));
    }
  }
  for (const std::string& c : o.choices) Log(absl::StrCat("gpt_serve: ", c));
  Log(absl::StrCat("gpt_serve: ", model::DescribeConfig(o.step.config), " on the CPU (", sysinfo::ReadCpuInfo().model,
                   "), ", o.requests, " requests, ",
                   o.find_max_rate ? std::string("rates of --find_max_rate") : absl::StrCat("rate ", RateName(o.rate)),
                   " requests/s (seed ", o.step.seed,
                   "), prompts ", o.prompt.ToString(), ", outputs ", o.generate.ToString(), ", max_batch ",
                   o.max_batch));
  std::vector<std::string> notes;
  auto session = ServeSession::Create(o, &notes);
  if (!session.ok()) return harness::Fail(kTool, session.status());
  for (const std::string& n : notes) Log(absl::StrCat("gpt_serve: ", n));
  Log(absl::StrCat("gpt_serve: GEMM --cpu_gemm=", model::CpuGemmBackendName(o.step.cpu_gemm), ": ",
                   model::CpuGemmInfo(o.step.cpu_gemm).ToString()));
  nlohmann::ordered_json json;
  json["tool"] = kTool;
  json["options"] = OptionsJson(o);
  absl::Status st = o.find_max_rate ? FindRate(session->get(), o, &json) : RunLoad(session->get(), o, &json);
  if (!st.ok()) return harness::Fail(kTool, st);
  if (!o.out.empty()) {
    if (absl::Status w = harness::WriteFileAtomically(o.out, harness::DumpJson(json, 1) + "\n"); !w.ok()) {
      return harness::Fail(kTool, absl::InternalError(absl::StrCat("--out: ", w.message())));
    }
    Log(absl::StrCat("gpt_serve: wrote ", o.out));
  }
  return harness::kExitOk;
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(macro::kUsage);
  if (harness::WantsHelp(argc, argv)) {
    macro::PrintHelp();
    return harness::kExitOk;
  }
  return macro::Main(argc, argv);
}
