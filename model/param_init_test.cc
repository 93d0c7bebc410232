// GPT-2 initialisation: statistics per tensor, seed determinism, thread-count independence.
#include "model/param_init.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/threads.h"

namespace model {
namespace {

struct Stats {
  double mean = 0, std = 0;
};

Stats Of(const float* p, int64_t n) {
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += p[i];
    s2 += double(p[i]) * p[i];
  }
  Stats st;
  st.mean = s / n;
  st.std = std::sqrt(s2 / n - st.mean * st.mean);
  return st;
}

TEST(ParamInit, Gpt2Statistics) {
  const GptConfig c = *GptPreset("test-mini");  // L4 C128: tensors of 64K-256K elements
  const ParamLayout layout(c);
  std::vector<float> p(layout.num_params());
  InitParams(c, layout, 1337, p.data());
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    const float* x = p.data() + t.offset;
    const double want = InitStd(c, t.id);
    if (want == 0) {
      const bool ones = t.id == ParamId::kLn1w || t.id == ParamId::kLn2w || t.id == ParamId::kLnfw;
      for (int64_t i = 0; i < t.size; ++i) ASSERT_EQ(x[i], ones ? 1.0f : 0.0f) << t.name;
      continue;
    }
    const Stats s = Of(x, t.size);
    // Sample std of n normals has relative sd ~ 1/sqrt(2n) <= 0.3% here: 3% is > 10 sigma.
    EXPECT_NEAR(s.std, want, 0.03 * want) << t.name;
    EXPECT_NEAR(s.mean, 0.0, 6 * want / std::sqrt(double(t.size))) << t.name;
  }
  // Residual projections are scaled by 1/sqrt(2L).
  EXPECT_DOUBLE_EQ(InitStd(c, ParamId::kAttprojw), 0.02 / std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(InitStd(c, ParamId::kFcprojw), 0.02 / std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(InitStd(c, ParamId::kQkvw), 0.02);
}

TEST(ParamInit, SameSeedSameBitsWhateverTheThreadCount) {
  const GptConfig c = *GptPreset("test-mini");
  const ParamLayout layout(c);
  std::vector<float> a(layout.num_params()), b(layout.num_params()), d(layout.num_params());
  const int threads = NumThreads();
  SetNumThreads(1);
  InitParams(c, layout, 42, a.data());
  SetNumThreads(2);
  InitParams(c, layout, 42, b.data());
  SetNumThreads(threads);
  EXPECT_EQ(a, b);
  InitParams(c, layout, 43, d.data());
  EXPECT_NE(a, d);
}

}  // namespace
}  // namespace model
