// RankAgreementLines over the real flag table of gpt_step's shared flags (step_flags.cc) and a
// rank-own flag of the test's: every shared flag but --threads is compared by value, --cpu_gemm
// included; a given_on_all_or_none flag by whether it is given; Abseil's own not at all.
#include "macro/rank_flags.h"

#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "macro/step_flags.h"

ABSL_FLAG(std::string, json_out, "", "stands for ddp_step's --json_out");

namespace macro {
namespace {

const std::vector<RankOwnFlag> kOwn = {
    {"threads", false, "each rank's own CPUs"},
    {"json_out", true, "rank 0 writes it"},
};

void Set(const char* name, const char* value) {
  std::string err;
  ASSERT_TRUE(absl::FindCommandLineFlag(name)->ParseFrom(value, &err)) << err;
}

TEST(RankFlagsTest, EveryFlagOfTheTableButTheRanksOwnIsCompared) {
  (void)ReadStepFlags();  // links step_flags.cc's flags in
  absl::StatusOr<std::string> lines = RankAgreementLines(kOwn);
  ASSERT_TRUE(lines.ok()) << lines.status();
  int step_flags = 0;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!absl::EndsWith(flag->Filename(), kStepFlagsFile)) continue;
    ++step_flags;
    const bool listed = absl::StrContains(*lines, absl::StrCat("--", name, "="));
    EXPECT_EQ(listed, name != "threads") << name << " in:\n" << *lines;
  }
  EXPECT_GE(step_flags, 20);
  EXPECT_TRUE(absl::StrContains(*lines, "--cpu_gemm=")) << *lines;
  EXPECT_TRUE(absl::StrContains(*lines, "--json_out not given")) << *lines;
  EXPECT_FALSE(absl::StrContains(*lines, "--flagfile")) << *lines;
  EXPECT_FALSE(absl::StrContains(*lines, "--threads")) << *lines;
}

TEST(RankFlagsTest, DifferencesNameTheFlagAndBothValues) {
  (void)ReadStepFlags();
  const std::string rank0 = RankAgreementLines(kOwn).value();
  Set("cpu_gemm", "openblas");
  Set("json_out", "/tmp/ranks.json");
  Set("threads", "3");  // a rank's own: never a difference
  const std::string rank1 = RankAgreementLines(kOwn).value();
  EXPECT_EQ(FlagDifferences(rank0, rank1),
            (std::vector<std::string>{"--cpu_gemm=openblas (rank 0: --cpu_gemm=)",
                                      "--json_out given (rank 0: --json_out not given)"}));
  EXPECT_TRUE(FlagDifferences(rank1, rank1).empty());
  Set("cpu_gemm", "");
  Set("json_out", "");
  Set("threads", "0");
}

TEST(RankFlagsTest, AnOwnFlagNotInTheTableIsAnError) {
  absl::StatusOr<std::string> lines = RankAgreementLines({{"json_outt", true, "typo"}});
  ASSERT_FALSE(lines.ok());
  EXPECT_TRUE(absl::StrContains(lines.status().message(), "--json_outt")) << lines.status();
}

}  // namespace
}  // namespace macro
