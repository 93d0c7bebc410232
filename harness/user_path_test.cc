// UserPath resolves against the folder bazel run was started from, else the working
// directory, and always returns an absolute path; RewritePathFlag does it inside argv.
#include "harness/user_path.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace harness {
namespace {

std::string Cwd() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) == nullptr ? "" : buf;
}

TEST(UserPathTest, RelativeAgainstBuildWorkingDirectory) {
  setenv("BUILD_WORKING_DIRECTORY", "/home/u/src", 1);
  EXPECT_EQ(UserPath("out.json"), "/home/u/src/out.json");
  EXPECT_EQ(UserPath("./sub/out.json"), "/home/u/src/sub/out.json");
  EXPECT_EQ(UserPath("../x.bin"), "/home/u/src/../x.bin");
  EXPECT_EQ(UserPath("/abs.json"), "/abs.json");
  EXPECT_EQ(UserPath(""), "");
  setenv("BUILD_WORKING_DIRECTORY", "/", 1);
  EXPECT_EQ(UserPath("a"), "/a");
  unsetenv("BUILD_WORKING_DIRECTORY");
}

TEST(UserPathTest, RelativeAgainstTheWorkingDirectoryWithoutBazelRun) {
  unsetenv("BUILD_WORKING_DIRECTORY");
  const std::string cwd = Cwd();
  ASSERT_FALSE(cwd.empty());
  EXPECT_EQ(UserPath("out.json"), cwd + "/out.json");
  EXPECT_EQ(UserPath("out.json")[0], '/');
  setenv("BUILD_WORKING_DIRECTORY", "", 1);  // set but empty: as if unset
  EXPECT_EQ(UserPath("out.json"), cwd + "/out.json");
  unsetenv("BUILD_WORKING_DIRECTORY");
}

TEST(UserPathTest, RewritePathFlagRewritesOnlyThatFlag) {
  setenv("BUILD_WORKING_DIRECTORY", "/w", 1);
  std::string a0 = "bin", a1 = "--benchmark_out=r.json", a2 = "--benchmark_out_format=json",
              a3 = "--other=x.json";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
  EXPECT_EQ(RewritePathFlag(4, argv, "benchmark_out"), "/w/r.json");
  EXPECT_STREQ(argv[1], "--benchmark_out=/w/r.json");
  EXPECT_STREQ(argv[2], "--benchmark_out_format=json");
  EXPECT_STREQ(argv[3], "--other=x.json");
  EXPECT_EQ(RewritePathFlag(4, argv, "absent"), "");
  std::string b1 = "--benchmark_out=/abs.json";
  char* argv2[] = {a0.data(), b1.data(), nullptr};
  EXPECT_EQ(RewritePathFlag(2, argv2, "benchmark_out"), "/abs.json");
  EXPECT_EQ(argv2[1], b1.data());  // unchanged, same string
  unsetenv("BUILD_WORKING_DIRECTORY");
}

}  // namespace
}  // namespace harness
