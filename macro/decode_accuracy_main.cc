// //macro:decode_accuracy — does a weight format keep the fp32 model's answers?
//
// Two CPU decoders over gpt_decode's parameters (the random init of --seed: the project has no
// trained weights): the fp32 reference and the candidate of --weights. Reported, with the issue's
// thresholds (model/decode_accuracy.h):
//  - greedy top-1 agreement over --generate tokens per prompt on --prompts prompts, teacher-forced
//    on the fp32 model's greedy tokens (both see the same context): >= 98% PASS;
//  - the largest |logit difference| over the real vocab at those steps, its mean and RMS;
//  - the fp32 model's top-1 margins at those steps against those differences: how many steps
//    could flip, so whether the agreement figure says much about this model;
//  - the perplexity of both on a held-out stream (--data's first --stream_tokens tokens, or fixed
//    random ones from --seed), token by token through Step in windows of at most the block size,
//    and their relative difference: within 2% PASS.
// Exit 0 when every line passes, 1 when one FAILs, 2 on bad input or an error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "macro/gpt_decode_options.h"
#include "macro/gpt_decode_session.h"
#include "macro/step_flags.h"
#include "macro/step_options.h"
#include "model/cpu_decoder.h"
#include "model/data/rng.h"
#include "model/data/token_file.h"
#include "model/decode_accuracy.h"
#include "model/param_init.h"
#include "model/param_layout.h"
#include "model/rounded_weights.h"
#include "model/threads.h"
#include "sysinfo/cuda_info.h"

ABSL_FLAG(std::string, weights, "int8",
          "the candidate weight format against fp32: fp32 (a second fp32 decoder: must give 100% and 0), bf16 or "
          "int8 (the CPU decoder's formats, model/weight_format.h), or bf16_in_fp32 / int8_in_fp32 (the fp32 "
          "decoder over a copy whose Linear weights carry that format's rounding: the format's values without "
          "its kernels, model/rounded_weights.h)");
ABSL_FLAG(int, prompts, 8, "prompts, decoded in lockstep as that many streams (1 to 64)");
ABSL_FLAG(int, prompt_tokens, 32, "tokens per prompt: gpt_decode's random prompt of --seed, or --data's");
ABSL_FLAG(int, generate, 64, "greedy tokens compared per prompt; prompt_tokens + generate - 1 <= the block size");
ABSL_FLAG(int, stream_tokens, 512, "tokens of the held-out stream the perplexity is measured on (>= 2)");
ABSL_FLAG(double, min_agreement, model::kMinTop1Agreement,
          "the greedy top-1 agreement a PASS needs, in (0, 1] (the issue's 0.98; MLPerf sets 99% or 99.9% of fp32's "
          "accuracy)");
ABSL_FLAG(double, max_perplexity_diff, model::kMaxPerplexityRelDiff,
          "the largest |candidate / fp32 perplexity - 1| a PASS allows, in [0, 1] (the issue's 0.02)");

namespace macro {
namespace {

constexpr char kTool[] = "decode_accuracy";
constexpr char kMainFile[] = "macro/decode_accuracy_main.cc";
// gpt_step's shared flags that mean something here; any other one given is refused.
const std::set<std::string>& SharedFlags() {
  static const auto* s = new std::set<std::string>{"preset",   "layers",     "heads", "width", "vocab", "block",
                                                   "kv_heads", "mlp_hidden", "bias",  "data",  "seed",  "threads"};
  return *s;
}

struct Options {
  StepOptions step;  // model, data, seed, threads
  std::string weights;
  int prompts = 0, prompt_tokens = 0, generate = 0, stream_tokens = 0;
  double min_agreement = 0, max_perplexity_diff = 0;
};

absl::Status FlagError(const std::string& flag, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", msg));
}

absl::StatusOr<Options> ResolveOptions(const std::set<std::string>& given) {
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (given.count(std::string(name)) && absl::StrContains(flag->Filename(), kStepFlagsFile) &&
        !SharedFlags().count(std::string(name))) {
      return FlagError(std::string(name), absl::StrCat("a flag of gpt_step that decode_accuracy does not use (its "
                                                       "shared flags: ", absl::StrJoin(SharedFlags(), ", "), ")"));
    }
  }
  RawStepFlags raw = ReadStepFlags();
  raw.device = "cpu";
  auto step = ResolveStepOptions(raw, sysinfo::CudaInventory{});
  if (!step.ok()) return step.status();
  Options o;
  o.step = *step;
  o.weights = absl::GetFlag(FLAGS_weights);
  o.prompts = absl::GetFlag(FLAGS_prompts);
  o.prompt_tokens = absl::GetFlag(FLAGS_prompt_tokens);
  o.generate = absl::GetFlag(FLAGS_generate);
  o.stream_tokens = absl::GetFlag(FLAGS_stream_tokens);
  o.min_agreement = absl::GetFlag(FLAGS_min_agreement);
  o.max_perplexity_diff = absl::GetFlag(FLAGS_max_perplexity_diff);
  if (!(o.min_agreement > 0 && o.min_agreement <= 1)) {
    return FlagError("min_agreement", absl::StrCat(o.min_agreement, " is not a share in (0, 1]"));
  }
  if (!(o.max_perplexity_diff >= 0 && o.max_perplexity_diff <= 1)) {
    return FlagError("max_perplexity_diff", absl::StrCat(o.max_perplexity_diff, " is not a share in [0, 1]"));
  }
  const std::vector<std::string> formats = {"fp32", "bf16", "int8", "bf16_in_fp32", "int8_in_fp32"};
  if (std::find(formats.begin(), formats.end(), o.weights) == formats.end()) {
    return FlagError("weights", absl::StrCat("'", o.weights, "' is not one of ", absl::StrJoin(formats, ", ")));
  }
  if (o.prompts < 1 || o.prompts > kMaxBatchSweep) {
    return FlagError("prompts", absl::StrCat(o.prompts, " is out of range; allowed: 1 to ", kMaxBatchSweep));
  }
  if (o.prompt_tokens < 1) return FlagError("prompt_tokens", absl::StrCat(o.prompt_tokens, ": give >= 1"));
  if (o.generate < 1) return FlagError("generate", absl::StrCat(o.generate, ": give >= 1"));
  if (o.stream_tokens < 2) return FlagError("stream_tokens", absl::StrCat(o.stream_tokens, ": give >= 2"));
  const int block = o.step.config.block;
  if (o.prompt_tokens + o.generate - 1 > block) {
    return FlagError("generate", absl::StrCat("--prompt_tokens=", o.prompt_tokens, " + --generate=", o.generate,
                                              " - 1 positions exceed the block size ", block, " of ",
                                              o.step.config.name));
  }
  return o;
}

// The held-out stream and the prompts: from --data (the stream its first tokens, the prompts the
// tokens after it), else random tokens from --seed (the prompts gpt_decode's for that seed).
absl::Status ReadTokens(const Options& o, std::vector<int32_t>* stream, std::vector<int32_t>* prompts,
                        std::string* source) {
  const int vocab = o.step.config.vocab;
  const int64_t prompt_total = static_cast<int64_t>(o.prompts) * o.prompt_tokens;
  if (o.step.data.empty()) {
    *prompts = DecodePrompt(o.step.config, o.prompts, o.prompt_tokens, o.step.seed);
    model::Rng rng(o.step.seed ^ 0x5EEDull);
    stream->resize(static_cast<size_t>(o.stream_tokens));
    for (int32_t& t : *stream) t = static_cast<int32_t>(rng.UniformInt(static_cast<uint64_t>(vocab)));
    *source = absl::StrCat("random tokens from --seed=", o.step.seed, " (gpt_decode's prompts)");
    return absl::OkStatus();
  }
  auto file = model::TokenFile::Open(o.step.data);
  if (!file.ok()) return FlagError("data", std::string(file.status().message()));
  const int64_t need = o.stream_tokens + prompt_total;
  if ((*file)->num_tokens() < need) {
    return FlagError("data", absl::StrCat("'", o.step.data, "' holds ", (*file)->num_tokens(), " tokens; ", need,
                                          " are needed (--stream_tokens=", o.stream_tokens, " + --prompts x "
                                          "--prompt_tokens = ", prompt_total, ")"));
  }
  const uint16_t* t = (*file)->tokens();
  for (int64_t i = 0; i < need; ++i) {
    if (t[i] >= vocab) {
      return FlagError("data", absl::StrCat("token ", i, " of '", o.step.data, "' is ", t[i],
                                            ", outside the vocabulary [0, ", vocab, ") of ", o.step.config.name));
    }
  }
  stream->assign(t, t + o.stream_tokens);
  prompts->assign(t + o.stream_tokens, t + need);
  *source = absl::StrCat("'", o.step.data, "': the stream its first ", o.stream_tokens, " tokens, the prompts the ",
                         prompt_total, " after them");
  return absl::OkStatus();
}

// The candidate's parameters and format for --weights; `params` are the fp32 ones. fp32 gets a
// copy of its own (two decoders that share nothing), *_in_fp32 a rounded copy.
absl::Status MakeCandidate(const Options& o, const std::vector<float>& params, std::vector<float>* own,
                           model::WeightFormat* format) {
  const model::GptConfig& c = o.step.config;
  *format = model::WeightFormat::kFp32;
  if (o.weights == "fp32") {
    *own = params;
  } else if (o.weights == "bf16" || o.weights == "int8") {
    *format = o.weights == "bf16" ? model::WeightFormat::kBf16 : model::WeightFormat::kInt8;
  } else {
    const model::WeightFormat rounding =
        o.weights == "bf16_in_fp32" ? model::WeightFormat::kBf16 : model::WeightFormat::kInt8;
    auto rounded = model::RoundLinearWeights(c, params.data(), rounding);
    if (!rounded.ok()) return rounded.status();
    *own = std::move(*rounded);
  }
  return absl::OkStatus();
}

// A CPU decoder, its error prefixed with the format's name (int8 and bf16 say why they cannot run).
absl::StatusOr<std::unique_ptr<model::CpuDecoder>> MakeDecoder(const Options& o, const float* params,
                                                               model::WeightFormat f, int B, int P, int positions,
                                                               const char* role) {
  auto d = model::CpuDecoder::Create(o.step.config, params, B, P, positions, f);
  if (!d.ok()) {
    return absl::Status(d.status().code(),
                        absl::StrCat("the ", role, " decoder (", model::WeightFormatName(f), " weights): ",
                                     d.status().message(),
                                     f == model::WeightFormat::kFp32
                                         ? ""
                                         : absl::StrCat("; --weights=", model::WeightFormatName(f),
                                                        "_in_fp32 measures the format's rounding alone")));
  }
  return std::move(*d);
}

double PercentileOf(std::vector<double> v, double p) { return v.empty() ? 0 : Percentile(std::move(v), p); }

std::string Verdict(bool pass) { return pass ? "PASS" : "FAIL"; }

// The agreement, logit-difference and margin lines; returns whether the agreement passes.
bool PrintAgreement(const model::AgreementReport& r, double min_agreement) {
  const bool pass = r.agreement() >= min_agreement;
  std::printf("agreement     %.2f%% (%lld of %lld steps: %d prompts x %d generated tokens, teacher-forced on fp32's "
              "greedy tokens)  >= %.4g%%: %s\n",
              100 * r.agreement(), static_cast<long long>(r.agreed), static_cast<long long>(r.compared), r.streams,
              r.generated, 100 * min_agreement, Verdict(pass).c_str());
  std::printf("logit diff    max %.4g, mean %.4g, RMS %.4g (|candidate - fp32| over the real vocab at those steps)\n",
              r.max_abs_logit_diff, r.mean_abs_logit_diff, r.rms_logit_diff);
  std::printf("margins       fp32's top-1 margin (best - second logit): min %.4g, p10 %.4g, median %.4g, p90 %.4g; "
              "its logits' spread (std) median %.4g\n",
              PercentileOf(r.margins, 0), PercentileOf(r.margins, 10), PercentileOf(r.margins, 50),
              PercentileOf(r.margins, 90), PercentileOf(r.logit_stds, 50));
  std::printf("fragile       %lld of %lld steps have a margin <= 2x their largest logit difference (they can flip); "
              "%lld of them flipped, and no other step can\n",
              static_cast<long long>(r.fragile), static_cast<long long>(r.compared),
              static_cast<long long>(r.fragile_flipped));
  return pass;
}

bool PrintPerplexity(const model::PerplexityReport& ref, const model::PerplexityReport& cand, double max_diff) {
  const double rel = cand.perplexity() / ref.perplexity() - 1;
  const bool pass = std::fabs(rel) <= max_diff;
  std::printf("perplexity    fp32 %.4f, candidate %.4f: %+.4f%%  within %.4g%%: %s\n", ref.perplexity(),
              cand.perplexity(), 100 * rel, 100 * max_diff, Verdict(pass).c_str());
  std::printf("              %lld next-token predictions of a %lld-token stream, fed token by token through Step in %d "
              "window%s of at most %d positions (each from an empty cache)\n",
              static_cast<long long>(ref.predictions), static_cast<long long>(ref.tokens), ref.windows,
              ref.windows == 1 ? "" : "s", ref.window);
  return pass;
}

// Builds both pairs of decoders, measures, prints; the exit code.
int Run(const Options& o) {
  const model::GptConfig& c = o.step.config;
  if (o.step.threads > 0) model::SetNumThreads(o.step.threads);
  const model::ParamLayout layout(c);
  std::vector<float> params(static_cast<size_t>(layout.num_params()));
  model::InitParams(c, layout, o.step.seed, params.data());
  std::vector<int32_t> stream, prompts;
  std::string source;
  if (auto st = ReadTokens(o, &stream, &prompts, &source); !st.ok()) return harness::Fail(kTool, st);
  std::vector<float> own;
  model::WeightFormat format;
  if (auto st = MakeCandidate(o, params, &own, &format); !st.ok()) return harness::Fail(kTool, st);
  const float* cand_params = own.empty() ? params.data() : own.data();
  std::printf("%s: %s, parameters of --seed=%llu (random init); candidate --weights=%s against fp32; tokens: %s\n",
              kTool, model::DescribeConfig(c).c_str(), static_cast<unsigned long long>(o.step.seed),
              o.weights.c_str(), source.c_str());
  const int P = o.prompt_tokens, positions = P + o.generate - 1;
  auto ref = MakeDecoder(o, params.data(), model::WeightFormat::kFp32, o.prompts, P, positions, "reference");
  if (!ref.ok()) return harness::Fail(kTool, ref.status());
  auto cand = MakeDecoder(o, cand_params, format, o.prompts, P, positions, "candidate");
  if (!cand.ok()) return harness::Fail(kTool, cand.status());
  auto agreement = model::MeasureAgreement(ref->get(), cand->get(), prompts, P, o.generate);
  if (!agreement.ok()) return harness::Fail(kTool, agreement.status());
  ref->reset();
  cand->reset();
  const int window = std::min<int>(c.block, o.stream_tokens - 1);
  auto ref1 = MakeDecoder(o, params.data(), model::WeightFormat::kFp32, 1, 1, window, "reference");
  if (!ref1.ok()) return harness::Fail(kTool, ref1.status());
  auto cand1 = MakeDecoder(o, cand_params, format, 1, 1, window, "candidate");
  if (!cand1.ok()) return harness::Fail(kTool, cand1.status());
  auto ppl_ref = model::MeasurePerplexity(ref1->get(), stream);
  if (!ppl_ref.ok()) return harness::Fail(kTool, ppl_ref.status());
  auto ppl_cand = model::MeasurePerplexity(cand1->get(), stream);
  if (!ppl_cand.ok()) return harness::Fail(kTool, ppl_cand.status());
  const bool agree = PrintAgreement(*agreement, o.min_agreement);
  const bool ppl = PrintPerplexity(*ppl_ref, *ppl_cand, o.max_perplexity_diff);
  std::printf("result        %s\n", agree && ppl ? "PASS" : "FAIL (a weight format that breaks accuracy is a bug)");
  return agree && ppl ? harness::kExitOk : 1;
}

constexpr char kUsage[] =
    "decode_accuracy: a weight format's accuracy against fp32 on the CPU decoder (GPT-2 or the Llama family),\n"
    "over gpt_decode's parameters: the random init of --seed (the project has no trained weights).\n"
    "\n"
    "  bazel run //macro:decode_accuracy                                  int8 against fp32, gpt2\n"
    "  bazel run //macro:decode_accuracy -- --weights=int8_in_fp32        int8's rounding alone\n"
    "  bazel run //macro:decode_accuracy -- --data=/tmp/val.bin           a token file (//tools:make_tokens)\n"
    "\n"
    "Reports: greedy top-1 agreement over --generate tokens on each of --prompts prompts, teacher-forced\n"
    "on the fp32 model's greedy tokens so both decoders see the same context (PASS at >= 98%, or\n"
    "--min_agreement); the largest |logit difference| over the real vocab at those steps, its mean and\n"
    "RMS; fp32's top-1 margins there and how many steps could flip (margin <= 2x the step's largest\n"
    "difference): how fragile the agreement figure is for these weights (a random init's logits are\n"
    "close together); the perplexity of both on a held-out stream (the first --stream_tokens of\n"
    "--data, else random tokens of --seed), fed token by token through Step in windows of at most the\n"
    "block size, each from an empty cache (PASS within 2%, or --max_perplexity_diff).\n"
    "\n"
    "Exit status: 0 every line PASSes; 1 a line FAILs (or, as in every tool, the command line was not\n"
    "understood: an unknown flag or an unparsable value); 2 bad input (a flag out of range, a gpt_step\n"
    "flag this tool does not use, an unreadable or short token file) or a decoder that cannot run.";

void PrintHelp() {
  std::printf("%s\n\nFlags (gpt_step's model flags, --data, --seed and --threads, and its own):\n", kUsage);
  std::map<std::string, absl::CommandLineFlag*> mine;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), kMainFile) ||
        (absl::StrContains(flag->Filename(), kStepFlagsFile) && SharedFlags().count(std::string(name)))) {
      mine[std::string(name)] = flag;
    }
  }
  for (const auto& [name, flag] : mine) {
    std::string help = flag->Help();
    if (name == "data") help = "token file in nanoGPT's format (flat uint16; //tools:make_tokens): the held-out "
                                "stream is its first --stream_tokens tokens, the prompts the ones after";
    if (name == "seed") help = "seed of the parameters (gpt_decode's), and of the random prompts and stream";
    std::printf("  --%s (default: \"%s\")\n      %s\n", name.c_str(), flag->DefaultValue().c_str(), help.c_str());
  }
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  using namespace macro;
  if (harness::WantsHelp(argc, argv)) {
    PrintHelp();
    return harness::kExitOk;
  }
  const std::set<std::string> given = GivenFlags(argc, argv);
  absl::ParseCommandLine(argc, argv);  // unknown flags: an error naming them, exit 1
  auto options = ResolveOptions(given);
  if (!options.ok()) return harness::Fail(kTool, options.status());
  return Run(*options);
}
