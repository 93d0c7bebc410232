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
  const std::string r = Report("mfu", {"--params=7e9", "--tokens_per_second=12000", "--devices=8", "--peak_flops=312e12"});
  EXPECT_NEAR(ResultValue(r, "mfu"), 6 * 7e9 * 12000 / (8 * 312e12), 1e-6);
  EXPECT_NE(r.find("band=low"), std::string::npos) << r;
  EXPECT_NE(r.find("peak_kind=flag"), std::string::npos) << r;
}

TEST(EstimateTest, TrainTimeAndDecodeBoundAndRoofline) {
  const std::string t = Report("train-time", {"--params=7e9", "--tokens=1e12", "--devices=64", "--mfu=0.45",
                                           "--peak_flops=312e12"});
  EXPECT_NEAR(ResultValue(t, "days"), 6 * 7e9 * 1e12 / (64 * 312e12 * 0.45) / 86400, 1e-3);
  const std::string d = Report("decode-bound", {"--params=7e9", "--bytes_per_param=2", "--bandwidth=2e12"});
  EXPECT_NEAR(ResultValue(d, "tokens_per_second"), 2e12 / 14e9, 1e-3);
  const std::string r = Report("roofline", {"--flops=2e9", "--bytes=1e9", "--peak_flops=312e12", "--bandwidth=2e12"});
  EXPECT_DOUBLE_EQ(ResultValue(r, "intensity"), 2);
  EXPECT_DOUBLE_EQ(ResultValue(r, "ridge"), 156);
  EXPECT_DOUBLE_EQ(ResultValue(r, "attainable_flops_per_s"), 4e12);
  EXPECT_NE(r.find("bound=memory"), std::string::npos) << r;
}

TEST(EstimateTest, GptSmallParameterCount) {
  const std::string g = Report("gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=50257", "--block=1024"});
  EXPECT_EQ(ResultValue(g, "params"), 124439808);
  EXPECT_EQ(ResultValue(g, "seq"), 1024);
  // --nobias drops the Linear and LayerNorm biases: fewer parameters.
  const std::string nb =
      Report("gpt", {"--layers=12", "--heads=12", "--width=768", "--vocab=50257", "--block=1024", "--nobias"});
  EXPECT_LT(ResultValue(nb, "params"), 124439808);
  EXPECT_NE(nb.find("bias=false"), std::string::npos) << nb;
}

TEST(EstimateTest, ErrorsNameTheFlag) {
  EXPECT_EQ(Error("mfu", {"--params=7e9", "--tokens_per_second=1", "--devices=2.5", "--gpu=A100"}),
            "--devices=2.5 is invalid: must be an integer >= 1");
  EXPECT_NE(Error("train-time", {"--params=7e9", "--tokens=1e12", "--devices=64", "--mfu=1.5", "--gpu=A100"})
                .find("--mfu=1.5 is invalid"),
            std::string::npos);
  EXPECT_NE(Error("mfu", {"--params=7e9", "--devices=8", "--gpu=A100"}).find("--tokens_per_second is required"),
            std::string::npos);
  EXPECT_NE(Error("mfu", {"--params=7e9", "--tokens_per_second=1", "--devices=1", "--gpu=A100", "--peak_flops=1e12"})
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
  EXPECT_EQ(ParseFlags("gpt", {}).value().at("bias"), "true");
  EXPECT_EQ(ParseFlags("gpt", {"--bias=false"}).value().at("bias"), "false");

  EXPECT_EQ(ParseFlags("gpt", {"--bias=maybe"}).status().message(), "--bias=maybe is invalid: true or false");
  EXPECT_NE(ParseFlags("mfu", {"--mfu=0.5"}).status().message().find("--mfu is not used by this command"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--parms=7e9"}).status().message().find("--parms is not a flag"), std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--nobias"}).status().message().find("--nobias is not used by this command"),
            std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"7e9"}).status().message().find("unexpected argument '7e9'"), std::string::npos);
  EXPECT_NE(ParseFlags("mfu", {"--params"}).status().message().find("--params needs a value"), std::string::npos);
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
