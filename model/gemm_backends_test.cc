// oneDNN and OpenBLAS give the same training step: the same model, seed and batch trained a few
// steps with each backend have losses, gradients and parameters equal within fp32 tolerance
// (the two libraries sum in different orders, so bit equality is not expected).
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/cpu_gemm_backend.h"
#include "model/train_setup.h"

namespace model {
namespace {

struct TrainRun {
  std::vector<double> losses;
  std::vector<float> first_grads, params;
};

TrainRun Train(CpuGemmBackend backend) {
  ScopedCpuGemmBackend scope(backend);
  TrainRun r;
  StepHooks hooks;
  hooks.after_backward = [&r](int step, GptModel& m) {
    if (step == 1) {
      EXPECT_TRUE(m.CopyGradsToHost(&r.first_grads).ok());
    }
  };
  auto t = TrainOnFixedBatch(*GptPreset("test-mini"), /*B=*/2, /*T=*/32, /*seed=*/5, /*batch_seed=*/11,
                             /*steps=*/3, hooks);
  if (!t.ok()) {
    ADD_FAILURE() << t.status();
    return r;
  }
  r.losses.assign(t->losses.begin(), t->losses.end());
  EXPECT_TRUE(t->model->CopyParamsToHost(&r.params).ok());
  return r;
}

// ||a - b|| / ||b||.
double RelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    n += double(b[i]) * b[i];
  }
  return std::sqrt(d / n);
}

TEST(GemmBackends, OneDnnAndOpenBlasTrainTheSame) {
  const TrainRun dnn = Train(CpuGemmBackend::kOneDnn);
  const TrainRun blas = Train(CpuGemmBackend::kOpenBlas);
  ASSERT_EQ(dnn.losses.size(), 3u);
  for (size_t i = 0; i < dnn.losses.size(); ++i) {
    EXPECT_NEAR(dnn.losses[i], blas.losses[i], 1e-5 * std::fabs(blas.losses[i])) << "step " << i + 1;
  }
  ASSERT_EQ(dnn.first_grads.size(), blas.first_grads.size());
  EXPECT_LT(RelativeDifference(dnn.first_grads, blas.first_grads), 1e-5);
  // Per element too: every gradient entry within fp32 rounding of its size.
  double scale = 0;
  for (float g : blas.first_grads) scale = std::max(scale, double(std::fabs(g)));
  for (size_t i = 0; i < dnn.first_grads.size(); ++i) {
    ASSERT_NEAR(dnn.first_grads[i], blas.first_grads[i], 1e-5 * scale) << "gradient " << i;
  }
  EXPECT_LT(RelativeDifference(dnn.params, blas.params), 1e-5);
  // Not a comparison of zeros: the gradients are far from 0 on the same scale.
  EXPECT_GT(scale, 1e-3);
  EXPECT_GT(RelativeDifference(std::vector<float>(blas.first_grads.size(), 0.f), dnn.first_grads), 0.99);
}

}  // namespace
}  // namespace model
