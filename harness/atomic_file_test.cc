#include "harness/atomic_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace harness {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

void Touch(const std::string& p) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr) << p;
  std::fputs("partial", f);
  std::fclose(f);
}

// The pid of a child that has exited and been reaped: no process has it (until reused).
pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

std::string TestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

TEST(AtomicFileTest, TempPathForNamesThisProcess) {
  EXPECT_EQ(TempPathFor("/x/out.json"), "/x/out.json.tmp." + std::to_string(getpid()));
}

TEST(AtomicFileTest, RemovesOnlyDeadWritersFilesOfThisPath) {
  const std::string dir = TestDir("stale");
  const std::string out = dir + "/train.bin";
  const std::string dead = out + ".tmp." + std::to_string(DeadPid());
  const std::string live = out + ".tmp." + std::to_string(getppid());  // the test runner: alive
  const std::string own = TempPathFor(out);
  const std::string other_path = dir + "/val.bin.tmp." + std::to_string(DeadPid());
  const std::string not_a_pid = out + ".tmp.backup";
  for (const std::string& p : {dead, live, own, other_path, not_a_pid, out}) Touch(p);

  EXPECT_EQ(RemoveStaleTempFiles(out), 1);
  EXPECT_FALSE(Exists(dead));
  EXPECT_TRUE(Exists(live));
  EXPECT_TRUE(Exists(own));
  EXPECT_TRUE(Exists(other_path));  // another output's: its own writer cleans it
  EXPECT_TRUE(Exists(not_a_pid));
  EXPECT_TRUE(Exists(out));
  EXPECT_EQ(RemoveStaleTempFiles(out), 0);
}

TEST(AtomicFileTest, RelativePathAndMissingFolder) {
  const std::string dir = TestDir("relative");
  ASSERT_EQ(chdir(dir.c_str()), 0);
  const std::string dead = "out.json.tmp." + std::to_string(DeadPid());
  Touch(dead);
  EXPECT_EQ(RemoveStaleTempFiles("out.json"), 1);
  EXPECT_FALSE(Exists(dead));
  EXPECT_EQ(RemoveStaleTempFiles("/no/such/folder/out.json"), 0);
}

std::string Read(const std::string& p) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return "<missing>";
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

TEST(AtomicFileTest, WritesWholeAndCleansUpAStaleTempFile) {
  const std::string dir = TestDir("write");
  const std::string out = dir + "/out.json";
  const std::string dead = out + ".tmp." + std::to_string(DeadPid());
  Touch(dead);
  ASSERT_TRUE(WriteFileAtomically(out, "{\"a\": 1}\n").ok());
  EXPECT_EQ(Read(out), "{\"a\": 1}\n");
  EXPECT_FALSE(Exists(dead));
  EXPECT_FALSE(Exists(TempPathFor(out)));
}

TEST(AtomicFileTest, AFailedWriteKeepsTheOldFileAndNoTemp) {
  const std::string dir = TestDir("failed");
  const std::string out = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(out, "old").ok());
  absl::Status st = WriteFileAtomically(out, [](std::FILE* f) {
    std::fputs("half", f);
    errno = ENOSPC;
    return false;
  });
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("No space left"), absl::string_view::npos) << st;
  EXPECT_EQ(Read(out), "old");
  EXPECT_FALSE(Exists(TempPathFor(out)));
}

TEST(AtomicFileTest, AnUncreatableFileNamesItsTempPathAndReason) {
  absl::Status st = WriteFileAtomically("/no/such/folder/out.json", "x");
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(st.message().find("cannot create '/no/such/folder/out.json.tmp."), absl::string_view::npos) << st;
  EXPECT_NE(st.message().find("No such file or directory"), absl::string_view::npos) << st;
}

}  // namespace
}  // namespace harness
