// Fuzzes the train-step flags (macro/step_flags.cc, macro/step_options.h): input = a first
// byte choosing the CUDA inventory (none, or one device of some compute capability), then lines
// "flag=value" for the flags gpt_step and ddp_step share. Each value is parsed as the command
// line parses it (absl::ParseFlag; a value it refuses is refused there), then
// ResolveStepOptions runs, then what gpt_step computes from the options before it allocates
// anything (FLOPs per step, the memory estimate, the case name).
// Properties: every error names its flag ("--name: ..." or the model check that failed); options
// that resolve describe a runnable step (batch, seq >= 1, seq <= block, heads divide width,
// steps >= 1, finite optimizer settings) whose FLOPs and memory are finite and positive.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/flags/marshalling.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "accounting/gpt_flops.h"
#include "fuzz/fuzz_util.h"
#include "macro/step_options.h"
#include "model/gpt_config.h"
#include "model/gpt_memory.h"
#include "sysinfo/cuda_info.h"

namespace {

// A flag's field in RawStepFlags, of the flag's type.
using Field = std::variant<int*, uint64_t*, double*, bool*, std::string*>;

// Sets the field of the flag `name` from `value` as absl::ParseFlag parses it (a value it refuses
// leaves the field as it was); an unknown name does nothing.
void Apply(absl::string_view name, absl::string_view value, macro::RawStepFlags* f) {
  const std::pair<const char*, Field> flags[] = {{"preset", &f->preset},
                                                 {"layers", &f->layers},
                                                 {"heads", &f->heads},
                                                 {"width", &f->width},
                                                 {"vocab", &f->vocab},
                                                 {"block", &f->block},
                                                 {"seq", &f->seq},
                                                 {"batch", &f->batch},
                                                 {"bias", &f->bias},
                                                 {"real_data", &f->real_data},
                                                 {"data", &f->data},
                                                 {"compare_data", &f->compare_data},
                                                 {"seed", &f->seed},
                                                 {"device", &f->device},
                                                 {"dtype", &f->dtype},
                                                 {"warmup_steps", &f->warmup_steps},
                                                 {"steps", &f->steps},
                                                 {"threads", &f->threads},
                                                 {"cpu_gemm", &f->cpu_gemm},
                                                 {"profile", &f->profile},
                                                 {"profile_out", &f->profile_out},
                                                 {"ceilings", &f->ceilings},
                                                 {"peak_flops", &f->peak_flops},
                                                 {"attention", &f->attention},
                                                 {"attention_impl", &f->attention_impl},
                                                 {"lr", &f->lr},
                                                 {"weight_decay", &f->weight_decay},
                                                 {"beta1", &f->beta1},
                                                 {"beta2", &f->beta2}};
  for (const auto& [flag, field] : flags) {
    if (name != flag) continue;
    std::visit(
        [value](auto* out) {
          std::remove_pointer_t<decltype(out)> parsed;
          std::string error;
          if (absl::ParseFlag(value, &parsed, &error)) *out = parsed;
        },
        field);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  sysinfo::CudaInventory cuda;
  cuda.reason = "fuzz: no device";
  if (data[0] != 0) {
    sysinfo::CudaDevice d;
    d.name = "fuzz GPU";
    d.cc_major = data[0] % 11;
    cuda.available = true;
    cuda.devices.push_back(d);
  }
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  macro::RawStepFlags flags;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
    if (kv.size() == 2) Apply(kv[0], kv[1], &flags);
  }

  auto o = macro::ResolveStepOptions(flags, cuda);
  if (!o.ok()) {
    const auto msg = o.status().message();
    FUZZ_CHECK(absl::StartsWith(msg, "--") || absl::StartsWith(msg, "model config: ") ||
               absl::StartsWith(msg, "run shape: "));
    return 0;
  }
  FUZZ_CHECK(o->batch >= 1 && o->seq >= 1 && o->seq <= o->config.block);
  FUZZ_CHECK(o->config.heads >= 1 && o->config.width % o->config.heads == 0);
  FUZZ_CHECK(o->config.vocab >= 1 && o->config.padded_vocab >= o->config.vocab);
  FUZZ_CHECK(o->steps >= 1 && o->warmup_steps >= 0 && o->threads >= 0);
  FUZZ_CHECK(o->lr > 0 && std::isfinite(o->weight_decay) && o->beta1 < 1 && o->beta2 < 1);
  FUZZ_CHECK(o->device == "cpu" || (o->device == "cuda" && cuda.available));
  FUZZ_CHECK(o->tokens_per_step() >= 1);
  FUZZ_CHECK(!o->CaseName().empty());

  const accounting::GptShape shape = model::ToGptShape(o->config);
  FUZZ_CHECK(accounting::ValidateGptShape(shape).ok());
  FUZZ_CHECK(accounting::GptParamCount(shape, true) > 0);
  auto flops = accounting::GptStepFlops(shape, o->seq, o->batch, /*grad_accum=*/1, o->convention);
  FUZZ_CHECK(flops.ok());
  FUZZ_CHECK(std::isfinite(flops->model_flops_per_step) && flops->model_flops_per_step > 0);
  auto memory = model::EstimateTrainingMemory(o->config, o->batch, o->seq);
  FUZZ_CHECK(memory.ok());
  FUZZ_CHECK(memory->total_bytes() > 0);
  (void)memory->Describe();
  (void)model::DescribeConfig(o->config);
  return 0;
}
