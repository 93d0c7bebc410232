// The elementwise ops: the reference against known values and invariants, the OpenMP
// implementation against the reference on sizes with vector tails, the comparison catching a
// wrong value, and the byte and FLOP accounting.
#include <cmath>
#include <numeric>

#include "accounting/costs.h"
#include "gtest/gtest.h"
#include "micro/elementwise/elementwise.h"

namespace micro {
namespace {

TEST(ElementwiseOpsTest, CpuMatchesReferenceForEveryOp) {
  for (ElementwiseOp op : AllElementwiseOps()) {
    for (int64_t n : {int64_t{1}, int64_t{37}, int64_t{3 * 1024 + 5}, int64_t{100003}}) {
      const ElementwiseProblem p = MakeElementwiseProblem(op, n);
      SCOPED_TRACE(std::string(OpInfo(op).name) + " n=" + std::to_string(p.n));
      HostElementwiseData data(p, 1), ref(p, 1);
      ASSERT_TRUE(data.ok() && ref.ok());
      data.Fill();
      ref.CopySliceFrom(data, 0);
      ReferenceElementwise(p, ref.Slice(0));
      CpuElementwise(p, data.Slice(0));
      EXPECT_EQ(CompareElementwise(p, data.Slice(0), ref.Slice(0)), "");
    }
  }
}

TEST(ElementwiseOpsTest, CompareCatchesAWrongOutputAndNan) {
  const ElementwiseProblem p = MakeElementwiseProblem(ElementwiseOp::kTriad, 1000);
  HostElementwiseData data(p, 1), ref(p, 1);
  data.Fill();
  ref.CopySliceFrom(data, 0);
  ReferenceElementwise(p, ref.Slice(0));
  CpuElementwise(p, data.Slice(0));
  data.Slice(0).big[2][17] *= 1.001f;
  const std::string diff = CompareElementwise(p, data.Slice(0), ref.Slice(0));
  EXPECT_NE(diff.find("element 17"), std::string::npos) << diff;
  data.Slice(0).big[2][17] = std::nanf("");
  EXPECT_NE(CompareElementwise(p, data.Slice(0), ref.Slice(0)), "");
}

TEST(ElementwiseOpsTest, ReferenceKnownValues) {
  // gelu(0) = 0, gelu(x) ~ x for large x, gelu(-x) ~ 0; gelu(1) = 0.841192 (tanh form).
  const ElementwiseProblem p = MakeElementwiseProblem(ElementwiseOp::kGelu, 4);
  float x[4] = {0.f, 6.f, -6.f, 1.f}, y[4] = {};
  ElementwiseTensors t;
  t.big[0] = x;
  t.big[1] = y;
  ReferenceElementwise(p, t);
  EXPECT_EQ(y[0], 0.f);
  EXPECT_NEAR(y[1], 6.f, 1e-6);
  EXPECT_NEAR(y[2], 0.f, 1e-6);
  EXPECT_NEAR(y[3], 0.841192f, 1e-6);
}

TEST(ElementwiseOpsTest, SoftmaxRowsSumToOneAndLayerNormNormalises) {
  const ElementwiseProblem sm = MakeElementwiseProblem(ElementwiseOp::kSoftmax, 4096);
  HostElementwiseData s(sm, 1);
  s.Fill();
  CpuElementwise(sm, s.Slice(0));
  for (int64_t r = 0; r < sm.rows(); ++r) {
    const float* y = s.Slice(0).big[1] + r * sm.row;
    EXPECT_NEAR(std::accumulate(y, y + sm.row, 0.0), 1.0, 1e-5);
  }
  const ElementwiseProblem ln = MakeElementwiseProblem(ElementwiseOp::kLayerNorm, 4 * 768);
  HostElementwiseData l(ln, 1);
  l.Fill();
  ElementwiseTensors t = l.Slice(0);
  for (int64_t c = 0; c < ln.row; ++c) {
    t.small[0][c] = 1.f;  // w
    t.small[1][c] = 0.f;  // b
  }
  CpuElementwise(ln, t);
  for (int64_t r = 0; r < ln.rows(); ++r) {
    const float* y = t.big[1] + r * ln.row;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < ln.row; ++c) mean += y[c];
    mean /= ln.row;
    for (int64_t c = 0; c < ln.row; ++c) var += (y[c] - mean) * (y[c] - mean);
    var /= ln.row;
    EXPECT_NEAR(mean, 0.0, 1e-5);
    EXPECT_NEAR(var, 1.0, 1e-3);  // eps = 1e-5 against a variance of ~1/3
  }
}

TEST(ElementwiseOpsTest, AdamWMovesAgainstTheGradient) {
  const ElementwiseProblem p = MakeElementwiseProblem(ElementwiseOp::kAdamW, 1);
  float param = 0.5f, g = 1.0f, m = 0.f, v = 1e-3f;
  ElementwiseTensors t;
  t.big[0] = &param;
  t.big[1] = &g;
  t.big[2] = &m;
  t.big[3] = &v;
  CpuElementwise(p, t);
  EXPECT_LT(param, 0.5f);
  EXPECT_NEAR(m, 0.1f, 1e-7);
  EXPECT_NEAR(v, 0.999 * 1e-3 + 0.001, 1e-7);  // beta2 = 0.999f is not exact in fp32
}

TEST(ElementwiseOpsTest, BytesAndFlopsFollowAccounting) {
  const int64_t n = 1 << 20;
  const ElementwiseProblem scale = MakeElementwiseProblem(ElementwiseOp::kScale, n);
  EXPECT_EQ(ElementwiseByteCount(scale), accounting::ElementwiseBytes(n, 1, 1, 4));  // 8n
  EXPECT_EQ(ElementwiseFlops(scale), n);
  const ElementwiseProblem adamw = MakeElementwiseProblem(ElementwiseOp::kAdamW, n);
  EXPECT_EQ(ElementwiseByteCount(adamw), 28.0 * n);  // read p g m v, write p m v
  const ElementwiseProblem ln = MakeElementwiseProblem(ElementwiseOp::kLayerNorm, n);
  EXPECT_EQ(ln.n % 768, 0);
  EXPECT_LE(ln.n, n);
  EXPECT_EQ(ElementwiseByteCount(ln), 8.0 * ln.n + 8.0 * 768 + 8.0 * ln.rows());
}

TEST(ElementwiseOpsTest, RotationSpansTheFootprint) {
  const ElementwiseProblem p = MakeElementwiseProblem(ElementwiseOp::kAdd, 1 << 10);  // 12 KiB
  EXPECT_EQ(RotationSlices(p, 12.0 * 1024), 1);
  EXPECT_EQ(RotationSlices(p, 120.0 * 1024), 10);
  EXPECT_EQ(RotationSlices(p, 1.0), 1);
  HostElementwiseData d(p, 3);
  d.Fill();
  // Slices are distinct data (different parts of the pool).
  EXPECT_NE(d.Slice(0).big[0][0], d.Slice(1).big[0][0]);
  EXPECT_EQ(d.Slice(1).big[0] - d.Slice(0).big[0], p.n);
}

}  // namespace
}  // namespace micro
