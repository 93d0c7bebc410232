// --help is an answer (exit 0, the usage and this program's flags), not Abseil's exit 1.
#include "harness/flags_main.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gtest/gtest.h"
#include "harness/argv.h"

ABSL_FLAG(std::string, flags_main_test_path, "x.json", "a flag of this program");

namespace harness {
namespace {

TEST(FlagsMainTest, WantsHelp) {
  for (const char* h : {"--help", "-h", "-help", "--helpfull", "--helpshort"}) {
    Argv a({"prog", "--x=1", h});
    EXPECT_TRUE(WantsHelp(a.argc, a.argv())) << h;
  }
  Argv none({"prog", "--helper=1", "help"});
  EXPECT_FALSE(WantsHelp(none.argc, none.argv()));
  Argv positional({"prog", "--", "--help"});  // after "--": an argument, not a flag
  EXPECT_FALSE(WantsHelp(positional.argc, positional.argv()));
}

TEST(FlagsMainTest, HelpListsTheProgramsFlagsNotAbseils) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  PrintFlagsHelp("prog: does a thing.\nUsage: prog --flags_main_test_path=FILE", f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), f)) text.append(buf, n);
  std::fclose(f);
  EXPECT_EQ(text.rfind("prog: does a thing.\nUsage: prog", 0), 0u) << text;
  EXPECT_NE(text.find("--flags_main_test_path (default: \"x.json\")\n      a flag of this program"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("--flagfile"), std::string::npos) << text;  // Abseil's own
}

TEST(FlagsMainDeathTest, HelpExitsZeroUnknownFlagExitsOne) {
  Argv help({"prog", "--help"});
  EXPECT_EXIT(ParseFlagsOrExit(help.argc, help.argv(), "prog: usage"), testing::ExitedWithCode(0), "");
  Argv unknown({"prog", "--no_such_flag_here=1"});
  EXPECT_EXIT(ParseFlagsOrExit(unknown.argc, unknown.argv(), "prog: usage"), testing::ExitedWithCode(1),
              "no_such_flag_here");
}

TEST(FlagsMainTest, ParsesOurFlags) {
  Argv a({"prog", "--flags_main_test_path=y.json", "rest"});
  std::vector<char*> positional = ParseFlagsOrExit(a.argc, a.argv(), "prog: usage");
  EXPECT_EQ(absl::GetFlag(FLAGS_flags_main_test_path), "y.json");
  ASSERT_EQ(positional.size(), 2u);
  EXPECT_STREQ(positional[1], "rest");
}

}  // namespace
}  // namespace harness
