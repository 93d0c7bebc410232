// The memory ledger's lines: the CUDA model's from the arena it plans (each group once, the peak
// its arena plus cuBLASLt's workspace, the measured peak against it), and the CPU's naming the
// logits as what no recompute level frees.
#include "macro/memory_ledger.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "model/gpt_config.h"

namespace macro {
namespace {

StepOptions Options(const char* preset, int B, int T, accounting::Recompute r) {
  StepOptions o;
  o.config = *model::GptPreset(preset);
  o.batch = B;
  o.seq = T;
  o.recompute = r;
  return o;
}

TEST(MemoryLedger, CudaLedgerIsThePlansGroupsAndItsPeak) {
  const StepOptions o = Options("gpt2", 12, 1024, accounting::Recompute::kBlock);
  absl::StatusOr<model::cuda::CudaMemoryPlan> plan = model::cuda::PlanCudaMemory(
      o.config, o.batch, o.seq, model::cuda::StorageType::kBf16, 32 << 20, {}, o.recompute);
  ASSERT_TRUE(plan.ok()) << plan.status();
  MemoryLedger l = MakeCudaMemoryLedger(*plan, o);
  EXPECT_TRUE(l.cuda);
  EXPECT_EQ(l.plan.model.params_bytes, 124475904LL * 4);
  EXPECT_EQ(l.plan.model.grads_bytes, l.plan.model.params_bytes);
  EXPECT_EQ(l.plan.model.adamw_bytes, 2 * l.plan.model.params_bytes);
  EXPECT_GT(l.plan.model.bf16_bytes, 0);  // the bf16 weight copy
  EXPECT_EQ(l.predicted_peak(), plan->total_bytes());  // every group once, and cuBLASLt's workspace
  EXPECT_EQ(l.largest_activation, "logits");
  std::string text = absl::StrJoin(MemoryLedgerLines(l), "\n");
  EXPECT_NE(text.find("--recompute=block"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured"), std::string::npos) << text;  // peak_resident -1
  l.peak_resident = l.predicted_peak() + l.predicted_peak() / 20;      // +5%
  text = absl::StrJoin(MemoryLedgerLines(l), "\n");
  EXPECT_NE(text.find("+5.0% against predicted"), std::string::npos) << text;
  EXPECT_NE(text.find("on the device"), std::string::npos) << text;
}

TEST(MemoryLedger, CpuLedgerSaysNoLevelFreesTheLogits) {
  const StepOptions o = Options("gpt2", 4, 64, accounting::Recompute::kBlock);
  StepMemoryPlan plan;
  plan.model.activations_bytes = 200 << 20;
  const MemoryLedger l = MakeMemoryLedger(plan, o);
  EXPECT_FALSE(l.cuda);
  EXPECT_EQ(l.largest_activation, "logits");
  EXPECT_EQ(l.largest_activation_bytes, int64_t{4} * 64 * 50304 * 4);
  const std::string text = absl::StrJoin(MemoryLedgerLines(l), "\n");
  EXPECT_NE(text.find("no recompute level frees the logits"), std::string::npos) << text;
  EXPECT_NE(text.find("VmHWM"), std::string::npos) << text;
}

}  // namespace
}  // namespace macro
