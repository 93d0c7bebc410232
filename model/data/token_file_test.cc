// Token files: written atomically, memory-mapped back, and clear errors for missing, empty,
// odd-length, too-short and oversized files.
#include "model/data/token_file.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "model/data/batch_source.h"
#include "model/data/token_writer.h"

namespace model {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(TokenFile, RoundTrip) {
  const std::string path = TempPath("round.bin");
  const std::vector<uint16_t> tokens = {0, 1, 2, 65535, 50256, 7};
  ASSERT_TRUE(WriteTokenFile(path, tokens).ok());
  auto f = TokenFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ((*f)->num_tokens(), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*f)->tokens()[i], tokens[i]);
  EXPECT_EQ((*f)->path(), path);
}

// A file truncated under its mapping: reading past the new end is a SIGBUS, which the process
// turns into a line naming the file and exit status 2 (it died with no word before).
TEST(TokenFileDeathTest, ShrinkingWhileMappedStopsWithTheFileNamed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = TempPath("shrinks.bin");
  const std::vector<uint16_t> tokens(1 << 20, 7);  // 2 MiB: pages well past the first
  ASSERT_TRUE(WriteTokenFile(path, tokens).ok());
  EXPECT_EXIT(
      {
        auto f = TokenFile::Open(path);
        if (!f.ok()) std::_Exit(9);
        if (::truncate(path.c_str(), 4096) != 0) std::_Exit(8);
        volatile uint16_t x = (*f)->tokens()[(1 << 20) - 1];  // past the new end
        (void)x;
        std::_Exit(0);
      },
      testing::ExitedWithCode(2), "error: the token file '.*shrinks.bin' changed size while it was mapped");
  // Faults elsewhere are not ours: a SIGBUS raised outside any mapped file goes to the handler
  // that was there before, so it still ends the process by the signal, as without ours. Not under
  // AddressSanitizer: there the handler before ours is ASan's, which would report the raise as an
  // error of its own (a SUMMARY line CI treats as a finding).
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_EXIT(
      {
        auto f = TokenFile::Open(path);  // installs the handler
        if (!f.ok()) std::_Exit(9);
        ::raise(SIGBUS);
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGBUS), "");
#endif
}

TEST(TokenFile, Errors) {
  auto missing = TokenFile::Open(TempPath("no_such_file.bin"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no_such_file.bin"), std::string::npos);

  const std::string empty = TempPath("empty.bin");
  WriteBytes(empty, "");
  auto e = TokenFile::Open(empty);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("is empty"), std::string::npos) << e.status();

  const std::string odd = TempPath("odd.bin");
  WriteBytes(odd, "abc");
  auto o = TokenFile::Open(odd);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("3 bytes, an odd count"), std::string::npos) << o.status();

  auto dir = TokenFile::Open(TempPath(""));
  EXPECT_FALSE(dir.ok());
}

// Files over the documented limits, made sparse (nothing is written): refused from their size,
// before they are mapped or read.
TEST(TokenFile, OverTheSizeLimits) {
  const std::string huge = TempPath("huge.bin");
  {
    std::ofstream(huge) << "";
  }
  if (truncate(huge.c_str(), kMaxTokenFileBytes + 2) != 0) GTEST_SKIP() << "no sparse 1 TiB file here";
  auto t = TokenFile::Open(huge);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("over the limit of 1099511627776 (1 TiB"), std::string::npos) << t.status();
  ASSERT_EQ(truncate(huge.c_str(), static_cast<off_t>(kMaxTextBytes) + 1), 0);
  auto text = ByteTokensFromFile(huge);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("over the limit of 1 GiB"), std::string::npos) << text.status();
  unlink(huge.c_str());
}

TEST(TokenFile, TooShortForTheWindow) {
  const std::string path = TempPath("short.bin");
  ASSERT_TRUE(WriteTokenFile(path, std::vector<uint16_t>(8, 1)).ok());
  std::shared_ptr<const TokenFile> f = std::move(*TokenFile::Open(path));
  auto src = MakeTokenFileBatchSource(f, 2, 8, 100, 1);  // needs 9 tokens
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().message().find("too short"), std::string::npos) << src.status();
  EXPECT_NE(src.status().message().find("at least 9"), std::string::npos) << src.status();
  EXPECT_TRUE(MakeTokenFileBatchSource(f, 2, 7, 100, 1).ok());
}

TEST(TokenWriter, ByteTokensAndRandomTokens) {
  const std::string text = TempPath("text.txt");
  WriteBytes(text, std::string("hi\xff", 3));
  auto t = ByteTokensFromFile(text);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<uint16_t>{'h', 'i', 255}));
  EXPECT_EQ(ByteTokensFromFile(TempPath("nope.txt")).status().code(), absl::StatusCode::kNotFound);
  const std::string empty = TempPath("empty.txt");
  WriteBytes(empty, "");
  EXPECT_FALSE(ByteTokensFromFile(empty).ok());

  auto r = RandomTokens(10000, 300, 5);
  ASSERT_TRUE(r.ok());
  int max_tok = 0;
  for (uint16_t x : *r) max_tok = std::max<int>(max_tok, x);
  EXPECT_LT(max_tok, 300);
  EXPECT_GT(max_tok, 290);  // 10000 draws reach the top of the range
  EXPECT_EQ(*r, *RandomTokens(10000, 300, 5));
  EXPECT_FALSE(RandomTokens(0, 300, 5).ok());
  EXPECT_FALSE(RandomTokens(10, 70000, 5).ok());
  EXPECT_FALSE(WriteTokenFile(TempPath("x.bin"), {}).ok());
  EXPECT_FALSE(WriteTokenFile(TempPath("no_dir/x.bin"), *r).ok());
}

}  // namespace
}  // namespace model
