// JSON errors name the file and the byte; atomic writes leave no temporary file behind.
#include "tools/gate/gate_io.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"

namespace gate {
namespace {

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

TEST(GateIoTest, MalformedJsonNamesFileByteLineAndColumn) {
  const std::string p = TmpDir() + "/bad.json";
  { std::ofstream(p) << "{\n  \"a\": 1,\n  \"b\": ]\n}\n"; }
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(p);
  ASSERT_FALSE(j.ok());
  std::string m(j.status().message());
  EXPECT_TRUE(absl::IsInvalidArgument(j.status()));
  EXPECT_NE(m.find(p), std::string::npos) << m;
  // The ']' is at byte offset 19: line 3, column 8.
  EXPECT_NE(m.find("at byte offset 19 (line 3, column 8)"), std::string::npos) << m;
}

// Found by fuzz/gate_run_fuzz: a number past the range of a double is well-formed JSON that
// nlohmann refuses with out_of_range (not parse_error), which escaped and aborted gate.
TEST(GateIoTest, NumberOverflowIsAnErrorNotAnException) {
  absl::StatusOr<nlohmann::json> j = ParseJson("{\"real_time\": 476190.476190E47615}", "'run.json'");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("'run.json'"), std::string::npos) << j.status();
  EXPECT_NE(j.status().message().find("number overflow"), std::string::npos) << j.status();
}

TEST(GateIoTest, MissingFileIsNotFound) {
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(TmpDir() + "/does_not_exist.json");
  ASSERT_FALSE(j.ok());
  EXPECT_TRUE(absl::IsNotFound(j.status()));
}

TEST(GateIoTest, AtomicWriteReplacesAndLeavesNoTemporary) {
  const std::string dir = TmpDir() + "/atomic";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  const std::string p = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(p, "{\"v\": 1}\n").ok());
  ASSERT_TRUE(WriteFileAtomically(p, "{\"v\": 2}\n").ok());
  EXPECT_EQ((*ReadJsonFile(p))["v"], 2);
  int files = 0;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = readdir(d)) files += e->d_name[0] != '.';
  closedir(d);
  EXPECT_EQ(files, 1);
  EXPECT_FALSE(WriteFileAtomically(TmpDir() + "/no/such/dir/x.json", "x").ok());
}

TEST(GateIoTest, WorkspacePathsResolveAgainstBazelWorkspaceDirectory) {
  setenv("BUILD_WORKSPACE_DIRECTORY", "/repo", 1);
  EXPECT_EQ(WorkspacePath("tools/gate/baselines"), "/repo/tools/gate/baselines");
  EXPECT_EQ(WorkspacePath("/abs"), "/abs");
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
  EXPECT_EQ(WorkspacePath("tools/gate/baselines"), "tools/gate/baselines");
}

TEST(ValueOrTest, AValueOfAnotherKindGivesTheFallbackInsteadOfThrowing) {
  const nlohmann::json j = {{"s", "x"}, {"n", 3}, {"b", true}, {"bad", nlohmann::json::array()}};
  EXPECT_EQ(ValueOr<std::string>(j, "s", "d"), "x");
  EXPECT_EQ(ValueOr<int>(j, "n", 1), 3);
  EXPECT_EQ(ValueOr<double>(j, "n", 0.5), 3.0);
  EXPECT_TRUE(ValueOr<bool>(j, "b", false));
  EXPECT_EQ(ValueOr<std::string>(j, "bad", "d"), "d");
  EXPECT_EQ(ValueOr<int>(j, "s", 7), 7);
  EXPECT_EQ(ValueOr<std::string>(j, "n", "d"), "d");
  EXPECT_EQ(ValueOr<std::string>(j, "missing", "d"), "d");
  EXPECT_EQ(ValueOr<int>(nlohmann::json::array({1}), "n", 7), 7);
}

}  // namespace
}  // namespace gate
