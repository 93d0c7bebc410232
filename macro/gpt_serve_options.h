// gpt_serve's options: the shared model flags of step_flags.h that mean something to serving
// (preset and shape, seed, device, threads, cpu_gemm) resolved by ResolveStepOptions, and the
// serving flags (the load, the batch, the limits, --find_max_rate, --compare_serial, --weights,
// --out), validated into a run description. A pure function of the flags, like
// ResolveDecodeOptions, so every default and error is unit-tested without running anything.
#ifndef MACRO_GPT_SERVE_OPTIONS_H_
#define MACRO_GPT_SERVE_OPTIONS_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/serve_load.h"
#include "macro/step_options.h"
#include "model/weight_format.h"

namespace macro {

struct RawServeFlags {
  int requests = 200;
  std::string rate = "inf";
  std::string prompt = "16:128", generate = "16:64";
  int max_batch = 8;
  double ttft_limit_ms = 0, tpot_limit_ms = 0;
  bool find_max_rate = false;
  std::string find_range = "0.25:16";
  int find_steps = 5;
  double trial_max_s = 300;
  bool compare_serial = false;
  std::string weights = "fp32";
  std::string out;
  double progress_s = 10;
  std::set<std::string> given;  // flags on the command line (GivenFlags)
};

struct ServeOptions {
  StepOptions step;  // model, seed, threads, GEMM library (device: cpu)
  int requests = 0;
  double rate = 0;  // requests/s; +infinity: all at t = 0
  LengthRange prompt, generate;
  int max_batch = 0;
  double ttft_limit_ms = 0, tpot_limit_ms = 0;  // 0: no limit
  bool find_max_rate = false;
  double find_low = 0, find_high = 0;
  int find_steps = 0;
  double trial_max_s = 0;  // a run (each trial, the main run, the serial run) stops past it
  bool compare_serial = false;
  model::WeightFormat weights = model::WeightFormat::kFp32;
  std::string out;
  double progress_s = 0;
  std::vector<std::string> choices;  // defaults taken, with their reasons
  // The decoder's shape: every prompt fits one prefill, every request its positions.
  int max_prompt() const { return prompt.hi; }
  int max_positions() const { return prompt.hi + generate.hi; }
};

constexpr int kMaxServeBatch = 256;
constexpr int kMaxServeRequests = 1000000;

// The shared flags that mean nothing to gpt_serve; given, they are refused by name.
const std::vector<std::string>& ServeRefusedFlags();

// Errors (InvalidArgument "--flag=value: ..." or "--flag: ..."): a refused shared flag;
// --device=cuda (the slots are the CPU decoder's); --requests outside [1, 1e6]; a bad --rate,
// --prompt or --generate, prompt + generate beyond the block; --max_batch outside [1, 256];
// negative or non-finite limits; --find_max_rate without a limit, with --rate or
// --compare_serial; a bad --find_range, --find_steps outside [1, 20]; --trial_max_s <= 0;
// an unknown --weights; --progress_s < 0; every error of ResolveStepOptions.
absl::StatusOr<ServeOptions> ResolveServeOptions(const RawStepFlags& step, const RawServeFlags& serve,
                                                 const sysinfo::CudaInventory& cuda);

}  // namespace macro

#endif  // MACRO_GPT_SERVE_OPTIONS_H_
