// Each elementwise op's declared traffic (ElementwiseTraffic: bytes read, bytes written, in
// place or not) against what the CPU implementation touches, counted by page protection
// (harness/page_access.h): the pages of each array it reads, it writes, and writes without
// reading first. The arrays are whole pages, so the declared bytes and the pages touched agree
// to within one page per array.
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/page_access.h"
#include "measure/random_fill.h"
#include "micro/elementwise/elementwise.h"

namespace micro {
namespace {

class TrafficTest : public ::testing::TestWithParam<ElementwiseOp> {};

TEST_P(TrafficTest, DeclaredBytesAreWhatTheOpTouches) {
  // 98304 = 96 x 1024 = 128 x 768: whole rows of both row ops, 96 pages of 4 KiB per big array.
  const ElementwiseProblem p = MakeElementwiseProblem(GetParam(), 98304);
  const ElementwiseOpInfo& info = OpInfo(p.op);
  ASSERT_EQ(harness::PageAccessRecorder::PageBytes(), 4096);
  harness::PageAccessRecorder rec;
  ElementwiseTensors t;
  for (int i = 0; i < info.big_arrays; ++i) {
    t.big[i] = rec.Allocate(p.n);
    ASSERT_NE(t.big[i], nullptr);
    FillUniform(t.big[i], p.n, BigArraySeed(i), info.positive[i]);
  }
  for (int i = 0; i < SmallArrayCount(p); ++i) {
    t.small[i] = rec.Allocate(SmallArrayLength(p, i));
    ASSERT_NE(t.small[i], nullptr);
    FillUniform(t.small[i], SmallArrayLength(p, i), SmallArraySeed(i));
  }
  ASSERT_TRUE(rec.Watch().ok());
  CpuElementwise(p, t);
  rec.Stop();

  const double page = harness::PageAccessRecorder::PageBytes();
  double read = 0, written = 0, written_fresh = 0;
  int arrays = 0;
  auto add = [&](const float* a) {
    read += rec.PagesRead(a) * page;
    written += rec.PagesWritten(a) * page;
    written_fresh += rec.PagesWrittenUnread(a) * page;
    ++arrays;
  };
  for (int i = 0; i < info.big_arrays; ++i) add(t.big[i]);
  for (int i = 0; i < SmallArrayCount(p); ++i) add(t.small[i]);

  const accounting::OpTraffic declared = ElementwiseTraffic(p, 0);
  SCOPED_TRACE(absl::StrCat(info.name, ": read ", read, " written ", written, " fresh ", written_fresh,
                            "; declared read ", declared.read_bytes, " written ", declared.write_bytes));
  // Small arrays under a page round up to it: within one page per array.
  EXPECT_NEAR(read, declared.read_bytes, arrays * page);
  EXPECT_NEAR(written, declared.write_bytes, arrays * page);
  EXPECT_GT(read, 0);
  EXPECT_GT(written, 0);
  // In place: every written page was read first; else every written page was written fresh.
  if (declared.in_place) {
    EXPECT_EQ(written_fresh, 0);
  } else {
    EXPECT_EQ(written_fresh, written);
  }
  // And the kind the op is held to follows.
  EXPECT_EQ(accounting::KindOf(declared),
            p.op == ElementwiseOp::kAdamW ? accounting::TrafficKind::kInPlace
            : (p.op == ElementwiseOp::kAdd || p.op == ElementwiseOp::kTriad) ? accounting::TrafficKind::kTriad
                                                                             : accounting::TrafficKind::kCopy);
}

INSTANTIATE_TEST_SUITE_P(Ops, TrafficTest, ::testing::ValuesIn(AllElementwiseOps()),
                         [](const ::testing::TestParamInfo<ElementwiseOp>& i) { return std::string(OpInfo(i.param).name); });

}  // namespace
}  // namespace micro
