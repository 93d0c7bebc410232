// The estimate commands called directly: figures of worked examples, the flag table, parsing and
// help. estimate_test.sh runs the binary.
#include "tools/estimate/estimate_lib.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace estimate {
namespace {

// The value of `key` on the report's `result:` line, as a number.
double ResultValue(const std::string& report, const std::string& key) {
  for (absl::string_view line : absl::StrSplit(report, '\n')) {
    if (!absl::ConsumePrefix(&line, "result: ")) continue;
    for (absl::string_view kv : absl::StrSplit(line, ' ')) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      double v = 0;
      if (p.first == key && absl::SimpleAtod(p.second, &v)) return v;
    }
  }
  ADD_FAILURE() << "no numeric " << key << " on the result line of:\n" << report;
  return -1;
}

std::string Report(const std::string& command, const std::vector<std::string>& args) {
  absl::StatusOr<FlagValues> flags = ParseFlags(command, args);
  EXPECT_TRUE(flags.ok()) << flags.status();
  if (!flags.ok()) return "";
  absl::StatusOr<std::string> report = RunCommand(command, *flags);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : "";
}

std::string Error(const std::string& command, const std::vector<std::string>& args) {
  absl::StatusOr<FlagValues> flags = ParseFlags(command, args);
  if (!flags.ok()) return std::string(flags.status().message());
  absl::StatusOr<std::string> report = RunCommand(command, *flags);
  EXPECT_FALSE(report.ok()) << "expected an error, got:\n" << *report;
  return report.ok() ? "" : std::string(report.status().message());
}

TEST(EstimateTest, MfuOfSevenBOnEightA100s) {
  // 6 x 7e9 x 12000 / (8 x 312e12) = 0.2019.
  const std::string r =
      Report("mfu", {"--params=7e9", "--tokens_per_second=12000", "--devices=8", "--peak_flops=312e12"});
  EXPECT_NEAR(ResultValue(r, "mfu"), 6 * 7e9 * 12000 / (8 * 312e12), 1e-6);
  EXPECT_NE(r.find("band=low"), std::string::npos) << r;
  EXPECT_NE(r.find("peak_kind=flag"), std::string::npos) << r;
}

TEST(EstimateTest, TrainTimeAndDecodeBoundAndRoofline) {
  const std::string t = Report(
      "train-time", {"--params=7e9", "--tokens=1e12", "--devices=64", "--mfu=0.45", "--peak_flops=312e12"});
  EXPECT_NEAR(ResultValue(t, "days"), 6 * 7e9 * 1e12 / (64 * 312e12 * 0.45) / 86400, 1e-3);
  const std::string d = Report("decode-bound", {"--params=7e9", "--bytes_per_param=2", "--bandwidth=2e12"});
  EXPECT_NEAR(ResultValue(d, "tokens_per_second"), 2e12 / 14e9, 1e-3);
  const std::string r =
      Report("roofline", {"--flops=2e9", "--bytes=1e9", "--peak_flops=312e12", "--bandwidth=2e12"});
  EXPECT_DOUBLE_EQ(ResultValue(r, "intensity"), 2);
  EXPECT_DOUBLE_EQ(ResultValue(r, "ridge"), 156);
  EXPECT_DOUBLE_EQ(ResultValue(r, "attainable_flops_per_s"), 4e12);
  EXPECT_NE(r.find("bound=memory"), std::string::npos) << r;
}

TEST(EstimateTest, GptSmallParameterCount) {
  const std::string g =
      Report("gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=50257", "--block=1024"});
  EXPECT_EQ(ResultValue(g, "params"), 124439808);
  EXPECT_EQ(ResultValue(g, "seq"), 1024);
  // --nobias drops the Linear and LayerNorm biases: fewer parameters.
  const std::string nb = Report(
      "gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=50257", "--block=1024", "--nobias"});
  EXPECT_LT(ResultValue(nb, "params"), 124439808);
  EXPECT_NE(nb.find("bias=false"), std::string::npos) << nb;
}

// Llama 3 8B (Meta's published count) at T = 8192: torchtitan's full attention and Megatron-LM's
// causal half, to the FLOP; training memory at 16 bytes per parameter.
TEST(EstimateTest, GptPresetLlama3At8192) {
  const std::string r = Report("gpt", {"--preset=llama3-8b", "--seq=8192"});
  EXPECT_EQ(ResultValue(r, "params"), 8030261248.0);
  // N leaves out the untied input embedding (128256 x 4096).
  EXPECT_EQ(ResultValue(r, "flop_params"), 8030261248.0 - 128256.0 * 4096);
  EXPECT_EQ(ResultValue(r, "train_flops_per_token_full"), 57914449920.0);
  EXPECT_EQ(ResultValue(r, "train_flops_per_token_causal_halved"), 51471998976.0);
  EXPECT_EQ(ResultValue(r, "train_flops_per_step_full"), 57914449920.0 * 8192);
  EXPECT_EQ(ResultValue(r, "weights_bytes"), 4 * 8030261248.0);
  EXPECT_EQ(ResultValue(r, "grads_bytes"), 4 * 8030261248.0);
  EXPECT_EQ(ResultValue(r, "adamw_bytes"), 8 * 8030261248.0);
  EXPECT_EQ(ResultValue(r, "train_state_bytes"), 16 * 8030261248.0);
  for (const char* text :
       {"train FLOPs per token:    57914449920", "train FLOPs per token:    51471998976", "torchtitan",
        "Megatron-LM", "KV=8 (grouped-query), F=14336, RMSNorm, RoPE, SwiGLU, untied",
        "16 bytes per parameter", "model=llama3-8b\n"}) {
    EXPECT_NE(r.find(text), std::string::npos) << text << " not in:\n" << r;
  }
}

// The memory ledger: the CPU model's buffers per level (block keeps the least, and at gpt2 B=8
// T=256 at least 60% less than none), and on a GPU the CUDA model's bf16 plan against its memory:
// llama3-8b at B=1, T=8192 fits an H200 at no level (its training state alone is over 141 GB),
// llama3.2-1b fits at every level.
TEST(EstimateTest, GptMemoryLedgerPerRecomputeLevel) {
  const std::string cpu = Report("gpt", {"--preset=gpt2", "--batch=8", "--seq=256", "--recompute=all"});
  const double none = ResultValue(cpu, "memory_activations_none");
  const double block = ResultValue(cpu, "memory_activations_block");
  EXPECT_LT(ResultValue(cpu, "memory_activations_gelu"), none);
  EXPECT_LT(ResultValue(cpu, "memory_activations_attention"), none);
  EXPECT_LE(block, 0.4 * none) << cpu;
  EXPECT_EQ(ResultValue(cpu, "memory_total_none") - none, 16 * 124475904.0);  // fp32 params, grads, m, v
  EXPECT_NE(cpu.find("the CPU model's buffers"), std::string::npos) << cpu;

  const std::string h200 = Report("gpt", {"--preset=llama3-8b", "--seq=8192", "--recompute=all", "--gpu=H200"});
  for (const char* level : {"none", "swiglu", "attention", "block"}) {
    EXPECT_EQ(ResultValue(h200, std::string("fits_") + level), 0) << level;
  }
  EXPECT_NE(h200.find("fits at no level: the parameters, gradients, AdamW and the bf16 copy alone take 144.54 GB "
                      "of 141.00 GB"),
            std::string::npos)
      << h200;
  const std::string small = Report("gpt", {"--preset=llama3.2-1b", "--seq=8192", "--recompute=block", "--gpu=H200"});
  EXPECT_EQ(ResultValue(small, "fits_block"), 1);
  EXPECT_NE(small.find("fits at --recompute=block on one NVIDIA H200 SXM"), std::string::npos) << small;

  Outcome gelu = Main({"gpt", "--preset=llama-124m", "--recompute=gelu"});
  EXPECT_EQ(gelu.exit_code, kUsageError);
  EXPECT_NE(gelu.err.find("this model's MLP is swiglu (use --recompute=swiglu)"), std::string::npos) << gelu.err;
  Outcome bogus = Main({"gpt", "--preset=gpt2", "--recompute=most"});
  EXPECT_NE(bogus.err.find("--recompute=most is invalid: not one of none, gelu, attention, block, all"),
            std::string::npos)
      << bogus.err;
}

// A preset is its shape and switches: llama-124m's flags spelled out give the same figures, and
// gpt2's equal the GPT-2 shape flags with the padded vocab. A flag over a preset changes it.
TEST(EstimateTest, GptPresetEqualsItsFlags) {
  const std::vector<std::string> keys = {"params", "flop_params", "train_flops_per_token_full",
                                         "train_flops_per_token_causal_halved",
                                         "forward_flops_per_token_full"};
  const std::string preset = Report("gpt", {"--preset=llama-124m"});
  const std::string flags = Report(
      "gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=32000", "--block=1024", "--kv_heads=4",
              "--mlp_hidden=2048", "--swiglu", "--rmsnorm", "--rope", "--untied", "--nobias"});
  EXPECT_EQ(ResultValue(preset, "params"), 124668672);
  for (const std::string& k : keys) EXPECT_EQ(ResultValue(preset, k), ResultValue(flags, k)) << k;
  const std::string gpt2 = Report("gpt", {"--preset=gpt2"});
  const std::string gpt2_flags =
      Report("gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=50304", "--block=1024"});
  for (const std::string& k : keys) EXPECT_EQ(ResultValue(gpt2, k), ResultValue(gpt2_flags, k)) << k;
  EXPECT_NE(gpt2.find("V=50304 (50257 padded)"), std::string::npos) << gpt2;
  // Multi-head K/V over llama3-8b: larger K and V projections, the same attention term.
  const std::string mha = Report("gpt", {"--preset=llama3-8b", "--kv_heads=32"});
  const std::string gqa = Report("gpt", {"--preset=llama3-8b"});
  EXPECT_EQ(ResultValue(mha, "params") - ResultValue(gqa, "params"), 32.0 * 2 * 4096 * (4096 - 1024));
  EXPECT_NE(mha.find("model=llama3-8b-custom"), std::string::npos) << mha;
}

TEST(EstimateTest, GptPresetErrorsNameTheValue) {
  EXPECT_NE(Error("gpt", {"--preset=nope"}).find("--preset: unknown model preset 'nope': allowed are gpt2,"),
            std::string::npos);
  EXPECT_EQ(
      Error("gpt", {"--preset=llama3-8b", "--kv_heads=3"}),
      "--kv_heads=3 is invalid: does not divide llama3-8b's heads=32 (each K/V head serves a whole group of "
      "query heads)");
  EXPECT_EQ(Error("gpt", {"--preset=llama3-8b", "--heads=12"}),
            "--heads=12 is invalid: does not divide llama3-8b's width=4096");
  EXPECT_NE(Error("gpt", {"--preset=llama3-8b", "--seq=8193"})
                .find("--seq=8193 is invalid: must be <= llama3-8b's "
                      "block=8192"),
            std::string::npos);
  EXPECT_NE(Error("gpt", {"--layers=12"}).find("--heads is required without --preset"), std::string::npos);
  EXPECT_NE(Error("gpt", {"--layers=2", "--heads=3", "--width=9", "--vocab=10", "--block=4", "--rope"})
                .find("RoPE needs an even head size"),
            std::string::npos);
  EXPECT_EQ(Error("gpt", {"--preset=gpt2", "--mlp_hidden=0"}),
            "--mlp_hidden=0 is invalid: must be an integer >= 1");
}

TEST(EstimateTest, ErrorsNameTheFlag) {
  EXPECT_EQ(Error("mfu", {"--params=7e9", "--tokens_per_second=1", "--devices=2.5", "--gpu=A100"}),
            "--devices=2.5 is invalid: must be an integer >= 1");
  EXPECT_NE(Error("train-time", {"--params=7e9", "--tokens=1e12", "--devices=64", "--mfu=1.5", "--gpu=A100"})
                .find("--mfu=1.5 is invalid"),
            std::string::npos);
  EXPECT_NE(
      Error("mfu", {"--params=7e9", "--devices=8", "--gpu=A100"}).find("--tokens_per_second is required"),
      std::string::npos);
  EXPECT_NE(Error("mfu",
                  {"--params=7e9", "--tokens_per_second=1", "--devices=1", "--gpu=A100", "--peak_flops=1e12"})
                .find("only one source"),
            std::string::npos);
  EXPECT_NE(Error("gpt", {"--layers=12", "--heads=7", "--width=768", "--vocab=50257", "--block=1024"})
                .find("--heads=7 is invalid"),
            std::string::npos);
}

TEST(EstimateTest, ParsingComesFromTheTable) {
  absl::StatusOr<FlagValues> v = ParseFlags("mfu", {"--params", "7e9", "-devices=8"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->at("params"), "7e9");
  EXPECT_EQ(v->at("devices"), "8");
  EXPECT_EQ(v->at("dtype"), "bf16");  // the table's default
  EXPECT_EQ(ParseFlags("gpt", {}).value().count("bias"), 0u);  // the preset's, or true without one
  EXPECT_EQ(ParseFlags("gpt", {"--bias=false"}).value().at("bias"), "false");

  EXPECT_EQ(ParseFlags("gpt", {"--bias=maybe"}).status().message(), "--bias=maybe is invalid: true or false");
  EXPECT_NE(ParseFlags("mfu", {"--mfu=0.5"}).status().message().find("--mfu is not used by this command"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--parms=7e9"}).status().message().find("--parms is not a flag"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--nobias"}).status().message().find("--nobias is not used by this command"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"7e9"}).status().message().find("unexpected argument '7e9'"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--params"}).status().message().find("--params needs a value"),
            std::string::npos);
}

TEST(EstimateTest, EveryFlagDescribedOnceAndUsed) {
  std::set<std::string> names, commands;
  for (const CommandSpec& c : Commands()) commands.insert(c.name);
  for (const FlagSpec& f : FlagTable()) {
    EXPECT_TRUE(names.insert(f.name).second) << "--" << f.name << " twice in the table";
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_FALSE(f.commands.empty()) << f.name << " is used by no command";
    for (const std::string& c : f.commands) EXPECT_TRUE(commands.count(c)) << f.name << ": " << c;
  }
  for (const CommandSpec& c : Commands()) {
    const std::string help = CommandHelp(c.name);
    EXPECT_EQ(help.rfind("usage: estimate " + c.name, 0), 0u) << help;
    for (const std::string& f : CommandFlags(c.name)) {
      EXPECT_NE(help.find("--" + f + " "), std::string::npos) << c.name << " help lacks --" << f;
    }
  }
}

TEST(EstimateTest, MainHelpAndExitCodes) {
  Outcome help = Main({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const CommandSpec& c : Commands()) EXPECT_NE(help.out.find(c.synopsis), std::string::npos) << c.name;
  Outcome mfu_help = Main({"mfu", "--help"});
  EXPECT_EQ(mfu_help.exit_code, 0);
  EXPECT_EQ(mfu_help.out, CommandHelp("mfu"));
  EXPECT_EQ(Main({}).exit_code, kUsageError);
  Outcome unknown = Main({"mfuu"});
  EXPECT_EQ(unknown.exit_code, kUsageError);
  EXPECT_NE(unknown.err.find("unknown command 'mfuu'"), std::string::npos);
  Outcome bad = Main({"roofline", "--flops=1", "--bytes=0", "--gpu=A100"});
  EXPECT_EQ(bad.exit_code, kUsageError);
  EXPECT_EQ(bad.err, "estimate roofline: --bytes=0 is invalid: must be > 0\n");
  Outcome ok = Main({"decode-bound", "--params=7e9", "--bytes_per_param=2", "--bandwidth=2e12"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(ok.err.empty());
  EXPECT_NEAR(ResultValue(ok.out, "tokens_per_second"), 142.857, 1e-3);
}

}  // namespace
}  // namespace estimate
