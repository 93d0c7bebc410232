// CpuStepGemms lists exactly the Linear GEMMs a training step issues (checked against the FLOP
// counter of a real step), and MeasureStepGemmRate returns a positive rate on both backends.
#include "model/step_gemms.h"

#include <set>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/train_setup.h"

namespace model {
namespace {

TEST(StepGemms, MatchTheLinearFlopsOfARealStep) {
  const GptConfig c = *GptPreset("test-mini");
  const int B = 2, T = 16;
  auto setup = MakeModelAndBatch(c, B, T, 3, 4);
  ASSERT_TRUE(setup.ok()) << setup.status();
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    ASSERT_TRUE(ForwardBackward(*setup->model, setup->batch).ok());
  }
  double linear = 0;
  for (const auto& [tag, flops] : counter.by_tag()) {
    if (tag.rfind("attention_", 0) != 0) linear += flops;
  }
  const std::vector<StepGemm> gemms = CpuStepGemms(c, B, T);
  EXPECT_EQ(gemms.size(), 15u);
  double listed = 0;
  std::set<std::string> keys;
  for (const StepGemm& g : gemms) {
    listed += g.calls * g.flops_per_call();
    keys.insert(g.Key(CpuGemmBackend::kOneDnn));
  }
  EXPECT_EQ(keys.size(), gemms.size());  // keys are distinct
  EXPECT_GT(linear, 0);
  EXPECT_DOUBLE_EQ(listed, linear);
  EXPECT_EQ(gemms[0].Key(CpuGemmBackend::kOneDnn), "onednn/NT/M:32/N:384/K:128/bias");
}

TEST(StepGemms, RatesArePositiveOnBothBackends) {
  const GptConfig c = *GptPreset("test-tiny");
  for (CpuGemmBackend b : {CpuGemmBackend::kOneDnn, CpuGemmBackend::kOpenBlas}) {
    ScopedCpuGemmBackend scope(b);
    for (const StepGemm& g : CpuStepGemms(c, 2, 8)) {
      auto rate = MeasureStepGemmRate(g, 2);
      ASSERT_TRUE(rate.ok()) << rate.status();
      EXPECT_GT(*rate, 0) << g.name;
    }
  }
}

}  // namespace
}  // namespace model
