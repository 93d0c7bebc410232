// Batch sources: windows of the token file with targets shifted by one, seeded; the fixed
// random batch; out-of-vocab tokens in the data are reported.
#include "model/data/batch_source.h"

#include <set>

#include "gtest/gtest.h"
#include "model/data/token_writer.h"

namespace model {
namespace {

std::shared_ptr<const TokenFile> Counting(int64_t n, const std::string& name) {
  std::vector<uint16_t> tokens(n);
  for (int64_t i = 0; i < n; ++i) tokens[i] = static_cast<uint16_t>(i % 1000);
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  EXPECT_TRUE(WriteTokenFile(path, tokens).ok());
  return std::move(*TokenFile::Open(path));
}

TEST(TokenFileBatchSource, WindowsAreContiguousAndTargetsShifted) {
  auto f = Counting(5000, "count.bin");
  auto src = MakeTokenFileBatchSource(f, 4, 16, 1000, 42);
  ASSERT_TRUE(src.ok());
  std::set<int> starts;
  Batch b;
  for (int k = 0; k < 20; ++k) {
    ASSERT_TRUE((*src)->Next(&b).ok());
    ASSERT_EQ(b.B, 4);
    ASSERT_EQ(b.T, 16);
    for (int s = 0; s < 4; ++s) {
      const int first = b.inputs[s * 16];
      starts.insert(first);
      for (int t = 0; t < 16; ++t) {
        EXPECT_EQ(b.inputs[s * 16 + t], (first + t) % 1000);
        EXPECT_EQ(b.targets[s * 16 + t], (first + t + 1) % 1000);
      }
    }
  }
  EXPECT_GT(starts.size(), 50u);  // random windows, not one
  // Same seed, same windows; another seed, others.
  auto again = MakeTokenFileBatchSource(f, 4, 16, 1000, 42);
  auto other = MakeTokenFileBatchSource(f, 4, 16, 1000, 43);
  Batch b1, b2, b3;
  ASSERT_TRUE((*again)->Next(&b1).ok());
  ASSERT_TRUE((*other)->Next(&b3).ok());
  auto first = MakeTokenFileBatchSource(f, 4, 16, 1000, 42);
  ASSERT_TRUE((*first)->Next(&b2).ok());
  EXPECT_EQ(b1.inputs, b2.inputs);
  EXPECT_NE(b1.inputs, b3.inputs);
}

TEST(TokenFileBatchSource, ExactlyOneWindow) {
  auto f = Counting(17, "one.bin");
  auto src = MakeTokenFileBatchSource(f, 2, 16, 1000, 1);
  ASSERT_TRUE(src.ok());
  Batch b;
  ASSERT_TRUE((*src)->Next(&b).ok());
  EXPECT_EQ(b.inputs[0], 0);
  EXPECT_EQ(b.targets[15], 16);
}

TEST(TokenFileBatchSource, TokenOutsideVocab) {
  auto f = Counting(100, "vocab.bin");  // tokens 0..99
  // Refused when the source is made, before any batch is drawn.
  auto src = MakeTokenFileBatchSource(f, 1, 99, 50, 1);
  ASSERT_FALSE(src.ok());
  const absl::Status& st = src.status();
  EXPECT_NE(st.message().find("token 50 at position 50"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[0, 50)"), std::string::npos) << st;
}

// Past the tokens checked at start, a file is never read whole: its windows are checked as they
// are drawn, and the description says so. (A 100 GiB file was scanned for 107 s with no word.)
TEST(TokenFileBatchSource, PastTheUpFrontCheckEachWindowIsChecked) {
  auto f = Counting(100, "vocab_late.bin");  // tokens 0..99; 50 and up are outside a vocab of 50
  auto src = MakeTokenFileBatchSource(f, 1, 99, 50, 1, /*up_front=*/40);
  ASSERT_TRUE(src.ok()) << src.status();  // the first 40 are fine
  EXPECT_NE((*src)->Describe().find("the first 40 tokens checked against the vocabulary at start, each window "
                                    "as it is drawn"),
            std::string::npos)
      << (*src)->Describe();
  Batch b;
  const absl::Status st = (*src)->Next(&b);  // the one window holds token 50
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("token 50 at index 50"), std::string::npos) << st;
  // A file within the up-front check says nothing of windows.
  auto small = MakeTokenFileBatchSource(Counting(30, "vocab_small.bin"), 1, 16, 50, 1, /*up_front=*/40);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ((*small)->Describe().find("each window"), std::string::npos);
  EXPECT_EQ(kUpFrontCheckTokens, int64_t{64} << 20);  // 128 MiB of the file at most
}

TEST(FixedRandomBatchSource, SameBatchEveryTime) {
  auto src = MakeFixedRandomBatchSource(3, 10, 7, 9);
  ASSERT_TRUE(src.ok());
  Batch a, b;
  ASSERT_TRUE((*src)->Next(&a).ok());
  ASSERT_TRUE((*src)->Next(&b).ok());
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.inputs.size(), 30u);
  std::set<int> seen(a.inputs.begin(), a.inputs.end());
  for (int t : seen) EXPECT_TRUE(t >= 0 && t < 7);
  EXPECT_GT(seen.size(), 3u);
  EXPECT_FALSE(MakeFixedRandomBatchSource(0, 10, 7, 9).ok());
  EXPECT_FALSE(MakeFixedRandomBatchSource(1, 10, 0, 9).ok());
}

TEST(FixedRandomBatch, IsTheSourcesBatch) {
  auto src = MakeFixedRandomBatchSource(3, 10, 7, 9);
  ASSERT_TRUE(src.ok());
  Batch from_source;
  ASSERT_TRUE((*src)->Next(&from_source).ok());
  absl::StatusOr<Batch> b = FixedRandomBatch(3, 10, 7, 9);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->B, 3);
  EXPECT_EQ(b->T, 10);
  EXPECT_EQ(b->inputs, from_source.inputs);
  EXPECT_EQ(b->targets, from_source.targets);
  EXPECT_NE(FixedRandomBatch(3, 10, 7, 10)->inputs, b->inputs);  // another seed, another batch
  EXPECT_FALSE(FixedRandomBatch(3, 0, 7, 9).ok());
}

}  // namespace
}  // namespace model
