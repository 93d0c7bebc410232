// Gradient check: the analytic gradient of every parameter tensor of a tiny model against
// central finite differences, with the model run in double precision (CpuGpt<double>: the same
// templated code as the fp32 model). In double, with h = 1e-5, the truncation error of the
// central difference is ~h^2 |f'''| ~ 1e-10 and the rounding error ~ 1e-16 |f| / h ~ 1e-11, so a
// tolerance of 1e-8 + 1e-5 |g| leaves room for neither to hide a real bug (a wrong term is off
// by O(|g|)). A second test runs the fp32 model on the same point and compares its gradients
// with the double ones, which checks the fp32 path (vectorised exp/tanh, sgemm) as well.
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "model/cpu_gpt.h"
#include "model/data/batch_source.h"
#include "model/data/rng.h"
#include "model/param_init.h"
#include "model/threads.h"

namespace model {
namespace {

constexpr int kB = 2, kT = 8;

// GPT-2 init, then LayerNorm weights and all biases moved off 1 and 0 so every term of the
// gradient is exercised at a generic point.
std::vector<float> GenericParams(const GptConfig& c, const ParamLayout& layout) {
  std::vector<float> p(layout.num_params());
  InitParams(c, layout, 1234, p.data());
  Rng rng(99);
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (InitStd(c, t.id) != 0) continue;
    for (int64_t i = 0; i < t.size; ++i) p[t.offset + i] += static_cast<float>(0.1 * rng.Normal());
  }
  return p;
}

Batch TinyBatch(const GptConfig& c) {
  auto src = MakeFixedRandomBatchSource(kB, kT, c.vocab, 5);
  Batch b;
  EXPECT_TRUE((*src)->Next(&b).ok());
  return b;
}

void CheckAllTensors(const GptConfig& c) {
  auto made = CpuGpt<double>::Create(c, kB, kT);
  ASSERT_TRUE(made.ok()) << made.status();
  CpuGpt<double>& m = **made;
  const ParamLayout& layout = m.layout();
  const std::vector<float> init = GenericParams(c, layout);
  for (int64_t i = 0; i < m.num_params(); ++i) m.params()[i] = init[i];
  const Batch batch = TinyBatch(c);

  ASSERT_TRUE(m.Forward(batch).ok());
  m.ZeroGrad();
  ASSERT_TRUE(m.Backward().ok());
  const std::vector<double> grad(m.grads(), m.grads() + m.num_params());

  // Every element of tensors up to kMaxChecked elements, an evenly strided sample of larger ones
  // (which still visits every row of every matrix; all elements would take ~10x longer).
  constexpr int64_t kMaxChecked = 160;
  const double h = 1e-5;
  // Thousands of tiny forward passes: one thread avoids OpenMP's barrier cost, which dominates
  // (and explodes when other tests share the cores). Results do not depend on the count.
  const int threads = NumThreads();
  SetNumThreads(1);
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    double worst = 0, max_g = 0;
    int64_t nonzero = 0, checked = 0;
    int64_t stride = (t.size + kMaxChecked - 1) / kMaxChecked;
    if (stride > 1 && stride % 2 == 0) ++stride;  // odd: visits every column of C = 2^k
    for (int64_t i = (t.size - 1) % stride; i < t.size; i += stride) {
      ++checked;
      double* p = m.params() + t.offset + i;
      const double saved = *p;
      *p = saved + h;
      ASSERT_TRUE(m.Forward(batch).ok());
      const double lp = m.loss();
      *p = saved - h;
      ASSERT_TRUE(m.Forward(batch).ok());
      const double lm = m.loss();
      *p = saved;
      const double fd = (lp - lm) / (2 * h);
      const double g = grad[t.offset + i];
      const double err = std::fabs(g - fd);
      EXPECT_LE(err, 1e-8 + 1e-5 * std::fabs(fd))
          << t.name << "[" << i << "]: analytic " << g << " vs finite difference " << fd;
      worst = std::max(worst, err);
      max_g = std::max(max_g, std::fabs(g));
      nonzero += g != 0;
    }
    std::printf(
        "%-9s %4lld of %5lld elements checked, %4lld nonzero, max |g| %.3e, "
        "max |g - fd| %.3e\n",
        t.name.c_str(), static_cast<long long>(checked), static_cast<long long>(t.size),
        static_cast<long long>(nonzero), max_g, worst);
    EXPECT_GT(nonzero, 0) << t.name << ": an all-zero gradient checks nothing";
  }
  SetNumThreads(threads);
}

TEST(GradCheck, EveryTensorTiedWithBias) { CheckAllTensors(*GptPreset("test-tiny")); }

TEST(GradCheck, EveryTensorUntiedWithoutBias) {
  GptConfig c = *GptPreset("test-tiny");
  c.bias = false;
  c.tie_weights = false;
  CheckAllTensors(c);
}

// The Llama family through the same model: RMSNorm, RoPE, SwiGLU, 2 K/V heads for 4 query heads,
// no biases, untied (llama-tiny); and each switch alone on GPT-2's tiny config.
TEST(GradCheck, EveryTensorLlamaTiny) { CheckAllTensors(*GptPreset("llama-tiny")); }

TEST(GradCheck, EachSwitchAloneOnTestTiny) {
  GptConfig c = *GptPreset("test-tiny");  // C=16, 2 heads of 8
  c.norm = NormKind::kRmsNorm;
  CheckAllTensors(c);
  c = *GptPreset("test-tiny");
  c.positions = PositionKind::kRope;
  CheckAllTensors(c);
  c = *GptPreset("test-tiny");
  c.mlp = MlpKind::kSwiglu;
  c.mlp_hidden = 24;
  CheckAllTensors(c);
  c = *GptPreset("test-tiny");
  c.kv_heads = 1;
  CheckAllTensors(c);
}

// The fp32 model's gradients against the double model's at the same point. fp32 rounding
// (~6e-8 relative per operation, accumulated over sums of <= 64 terms and two layers) leaves
// errors around 1e-6 of the largest gradient; 1e-4 relative plus 2e-6 of the tensor's largest
// gradient bounds that with margin, while a wrong fp32-only path (exp_fast, tanh_fast, sgemm
// transposes) would be off by O(|g|).
void CheckFp32AgainstFp64(const GptConfig& c) {
  auto md = CpuGpt<double>::Create(c, kB, kT);
  auto mf = CpuGpt<float>::Create(c, kB, kT);
  ASSERT_TRUE(md.ok() && mf.ok());
  const std::vector<float> init = GenericParams(c, (*md)->layout());
  for (int64_t i = 0; i < (*md)->num_params(); ++i) {
    (*md)->params()[i] = init[i];
    (*mf)->params()[i] = init[i];
  }
  const Batch batch = TinyBatch(c);
  ASSERT_TRUE((*md)->Forward(batch).ok());
  ASSERT_TRUE((*mf)->Forward(batch).ok());
  EXPECT_NEAR((*mf)->loss(), (*md)->loss(), 1e-6 * (*md)->loss());
  (*md)->ZeroGrad();
  (*mf)->ZeroGrad();
  ASSERT_TRUE((*md)->Backward().ok());
  ASSERT_TRUE((*mf)->Backward().ok());
  for (const ParamTensorInfo& t : (*md)->layout().tensors()) {
    double max_g = 0, worst = 0;
    for (int64_t i = 0; i < t.size; ++i) max_g = std::max(max_g, std::fabs((*md)->grads()[t.offset + i]));
    for (int64_t i = 0; i < t.size; ++i) {
      const double gd = (*md)->grads()[t.offset + i], gf = (*mf)->grads()[t.offset + i];
      EXPECT_LE(std::fabs(gf - gd), 1e-4 * std::fabs(gd) + 2e-6 * max_g)
          << t.name << "[" << i << "]: fp32 " << gf << " vs fp64 " << gd;
      worst = std::max(worst, std::fabs(gf - gd) / (max_g > 0 ? max_g : 1));
    }
    if (t.size) std::printf("%-9s fp32 vs fp64: max error / max |g| = %.2e\n", t.name.c_str(), worst);
  }
}

TEST(GradCheck, Fp32GradientsMatchFp64) { CheckFp32AgainstFp64(*GptPreset("test-tiny")); }
TEST(GradCheck, Fp32GradientsMatchFp64LlamaTiny) { CheckFp32AgainstFp64(*GptPreset("llama-tiny")); }

}  // namespace
}  // namespace model
