// gpt_decode's options: gpt_step's shared flags (step_flags.h: model preset and shape, device,
// dtype, threads, cpu_gemm, seed, ceilings, peak_flops, warmup_steps, steps) plus the decode
// flags (--prompt, --generate, --batch_sweep), validated into a run description. A pure function
// of the flags and the CUDA inventory, like ResolveStepOptions, whose checks it reuses.
//
// Meaning for decode: --batch is the number of streams B (default 1: one request);
// --warmup_steps and --steps count whole generations (a generation = prefill of --prompt tokens,
// then --generate decode steps of one token per stream, greedy); --dtype is the weights' and
// the KV cache's storage (fp32 on the CPU; bf16 by default on CUDA). --weights is the Linear
// weights' storage (model/weight_format.h): auto, the --dtype's; fp32 or bf16, the same as that
// --dtype; int8, weight-only int8 with fp32 scales, on the CPU only (its arithmetic fp32).
#ifndef MACRO_GPT_DECODE_OPTIONS_H_
#define MACRO_GPT_DECODE_OPTIONS_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/step_options.h"
#include "model/weight_format.h"
#include "sysinfo/cuda_info.h"

namespace macro {

struct RawDecodeFlags {
  int prompt = 0;       // 0: the device's default
  int generate = 0;     // 0: the device's default
  int batch_sweep = 0;  // 0: one case at --batch; N: cases B = 1, 2, 4, ... <= N
  std::string weights = "auto";  // auto, fp32, bf16 or int8
  // Shared flags given on the command line (names without dashes): --batch=0 is then an error
  // rather than "the default", and train-step-only flags are refused.
  std::set<std::string> given;
};

struct DecodeOptions {
  StepOptions step;  // model, device, dtype, threads, GEMM library, seed, peak
  int prompt = 0, generate = 0;
  std::vector<int> batches;  // one case per entry
  int warmup_generations = 0, timed_generations = 0;
  std::vector<std::string> choices;  // defaults taken, with their reasons
  model::WeightFormat weights = model::WeightFormat::kFp32;  // the Linear weights' storage
  int positions() const { return prompt + generate; }
  // "gpt2/cpu/fp32/B:1/P:64/G:64": a case name's suffix. int8 weights put "int8w" in the dtype's
  // place ("gpt2/cpu/int8w/B:1/P:64/G:64"), so that no fp32 baseline is matched by an int8 run.
  std::string CaseName(int batch) const;
};

// The largest batch of a sweep: 64 streams.
constexpr int kMaxBatchSweep = 64;

// Flags of gpt_step that mean nothing to a decode run; given, they are refused by name.
const std::vector<std::string>& TrainOnlyFlags();

// Errors (InvalidArgument, "--flag: ..."): --prompt/--generate < 0 or prompt + generate > the
// block size; --batch given as 0 or negative; --batch_sweep outside [0, 64]; an unknown dtype
// or one the device's decoder does not run; --weights unknown, disagreeing with --dtype, or int8
// on CUDA or with a dtype but fp32; a train-step-only flag; and every error of
// ResolveStepOptions (preset, shape, device, threads, ...).
absl::StatusOr<DecodeOptions> ResolveDecodeOptions(const RawStepFlags& step, const RawDecodeFlags& decode,
                                                   const sysinfo::CudaInventory& cuda);

// Names of the flags given in argv ("--batch=3", "--batch 3", "-batch=3" -> "batch"), up to
// a "--" that ends the flags.
std::set<std::string> GivenFlags(int argc, char** argv);

}  // namespace macro

#endif  // MACRO_GPT_DECODE_OPTIONS_H_
