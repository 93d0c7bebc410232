// FolderLock: a second taker waits and gives up after its timeout naming the holder; it gets the
// lock once the first releases it; a folder that does not exist is an error naming the file.
#include "harness/folder_lock.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace harness {
namespace {

std::string Folder(const std::string& name) {
  std::string d = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  mkdir(d.c_str(), 0755);
  return d;
}

TEST(FolderLockTest, SecondTakerTimesOutNamingTheHolderThenGetsIt) {
  const std::string dir = Folder("locked");
  absl::StatusOr<FolderLock> first = FolderLock::Acquire(dir, "test", 5);
  ASSERT_TRUE(first.ok()) << first.status();
  struct stat st;
  ASSERT_EQ(stat(FolderLock::LockPath(dir).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  // flock locks belong to the open file: a second open in this process waits like another process.
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<FolderLock> second = FolderLock::Acquire(dir, "test", 0.3);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(second.status().message().find(absl::StrCat("held by pid ", getpid())), std::string::npos)
      << second.status();
  EXPECT_NE(second.status().message().find(FolderLock::LockPath(dir)), std::string::npos) << second.status();
  EXPECT_GE(waited, 0.3);

  *first = FolderLock::Acquire(Folder("other"), "test", 5).value();  // releases the first folder's lock
  absl::StatusOr<FolderLock> third = FolderLock::Acquire(dir, "test", 0.3);
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST(FolderLockTest, MissingFolderIsAnErrorNamingTheFile) {
  absl::StatusOr<FolderLock> lock = FolderLock::Acquire("/nonexistent/mlbench", "test", 1);
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.status().message().find("/nonexistent/mlbench/.lock"), std::string::npos) << lock.status();
}

}  // namespace
}  // namespace harness
