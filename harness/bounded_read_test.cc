// Size-limited reads: a regular file over the limit is refused before it is read, an endless
// stream (a FIFO fed faster than the limit) once past it, a directory and a missing file by kind.
#include "harness/bounded_read.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace harness {
namespace {

std::string TmpPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(ReadFileAtMost, RegularFileUpToTheLimit) {
  const std::string p = TmpPath("ten.txt");
  std::ofstream(p) << "0123456789";
  absl::StatusOr<std::string> ok = ReadFileAtMost(p, 10, "test file");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, "0123456789");

  absl::StatusOr<std::string> over = ReadFileAtMost(p, 9, "test file");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(over.status().message().find("is 10 bytes (10 bytes): over the limit of 9 bytes"),
            std::string::npos)
      << over.status();
  EXPECT_NE(over.status().message().find("before reading it"), std::string::npos) << over.status();
}

TEST(ReadFileAtMost, EndlessStreamIsCutAtTheLimit) {
  signal(SIGPIPE, SIG_IGN);  // the writer's end sees the reader leave
  const std::string p = TmpPath("endless.fifo");
  unlink(p.c_str());
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  std::thread writer([p] {
    std::ofstream out(p, std::ios::binary);
    const std::string block(4096, 'x');
    for (int i = 0; i < 64 && out; ++i) out << block << std::flush;  // 256 KiB, or until refused
  });
  absl::StatusOr<std::string> r = ReadFileAtMost(p, 10000, "stream");
  writer.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(r.status().message().find("is not a regular file"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("9.8 KiB (10000 bytes)"), std::string::npos) << r.status();
}

TEST(ReadFileAtMost, MissingFileAndDirectory) {
  absl::StatusOr<std::string> missing = ReadFileAtMost(TmpPath("no_such_file"), 100, "test file");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("cannot read test file"), std::string::npos);
  absl::StatusOr<std::string> dir = ReadFileAtMost(TmpPath(""), 100, "test file");
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(dir.status().message().find("is a directory"), std::string::npos) << dir.status();
}

TEST(DescribeBytes, Units) {
  EXPECT_EQ(DescribeBytes(512), "512 bytes");
  EXPECT_EQ(DescribeBytes(kMaxJsonFileBytes), "256 MiB");
  EXPECT_EQ(DescribeBytes(uint64_t{3} << 29), "1.5 GiB");
}

}  // namespace
}  // namespace harness
