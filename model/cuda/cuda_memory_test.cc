// The memory plan: sizes from an independent count, alignment, disjoint tensors, the fit check.
#include "model/cuda/cuda_memory.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "model/gpt_config.h"
#include "model/param_layout.h"

namespace model {
namespace cuda {
namespace {

GptConfig Gpt2() { return *GptPreset("gpt2"); }

TEST(CudaMemory, Gpt2Bf16MatchesAnIndependentCount) {
  const GptConfig c = Gpt2();
  const int B = 12, T = 1024;
  absl::StatusOr<CudaMemoryPlan> plan = PlanCudaMemory(c, B, T, StorageType::kBf16, kCublasLtWorkspaceBytes);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const int64_t L = 12, C = 768, NH = 12, Vp = 50304, BT = B * T;
  const int64_t np = ParamLayout(c).num_params();
  EXPECT_EQ(np, 124475904);  // GPT-2 124M with the padded vocab (llm.c's count)
  EXPECT_EQ(plan->group_bytes[static_cast<int>(MemoryGroup::kParams)], np * 4);
  EXPECT_EQ(plan->group_bytes[static_cast<int>(MemoryGroup::kAdamW)], 2 * np * 4);
  EXPECT_EQ(plan->group_bytes[static_cast<int>(MemoryGroup::kWeightCopy)], np * 2);
  // Activations: bf16 tensors, fp32 statistics and int32 tokens (all sizes here are multiples
  // of 256 bytes, so alignment adds nothing), and the AdamW step arguments (8 floats, aligned
  // up to 256 bytes).
  const int64_t per_layer_bf16 = BT * C * (1 + 3 + 1 + 1 + 1 + 4 + 4 + 1) + B * NH * T * T;
  const int64_t act =
      2 * (L * per_layer_bf16 + BT * C * 2 + BT * Vp) + 4 * (L * 4 * BT) + 4 * (4 * BT) + 4 * (2 * BT) + 256;
  EXPECT_EQ(plan->group_bytes[static_cast<int>(MemoryGroup::kActivations)], act);
  const int64_t scratch = 2 * (BT * C * (3 + 1 + 1 + 1 + 4 + 3 + 3 + 1 + 1) + B * NH * T * T);
  EXPECT_EQ(plan->group_bytes[static_cast<int>(MemoryGroup::kScratch)], scratch);
  EXPECT_EQ(plan->workspace_bytes, 32 << 20);
  EXPECT_EQ(plan->total_bytes(), np * 4 * 4 + np * 2 + act + scratch + (32 << 20));
  // About 12 GB: far inside an H200, far outside a small GPU.
  EXPECT_GT(plan->total_bytes(), int64_t{10} << 30);
  EXPECT_LT(plan->total_bytes(), int64_t{16} << 30);
}

// With cuDNN attention the (B, NH, T, T) matrices and the permuted copies are gone; the softmax
// statistics and cuDNN's workspace take their place.
TEST(CudaMemory, CudnnAttentionDropsTheTxTMatricesAndAddsStatistics) {
  const GptConfig c = Gpt2();
  const int B = 12, T = 1024;
  const int64_t L = 12, NH = 12, C = 768, BT = B * T, ws = int64_t{3} << 20;
  absl::StatusOr<CudaMemoryPlan> kernels =
      PlanCudaMemory(c, B, T, StorageType::kBf16, kCublasLtWorkspaceBytes);
  absl::StatusOr<CudaMemoryPlan> cudnn =
      PlanCudaMemory(c, B, T, StorageType::kBf16, kCublasLtWorkspaceBytes, AttentionMemory{true, ws});
  ASSERT_TRUE(kernels.ok() && cudnn.ok());
  const int64_t att = B * NH * int64_t{T} * T * 2;  // one (B, NH, T, T) bf16 matrix
  const std::pair<CudaTensor, int64_t> dropped[] = {
      {CudaTensor::kAtt, L * att},        {CudaTensor::kDAtt, att},
      {CudaTensor::kQkv, 3 * BT * C * 2}, {CudaTensor::kVaccum, BT * C * 2},
      {CudaTensor::kDVaccum, BT * C * 2}, {CudaTensor::kDQkvr, 3 * BT * C * 2}};
  int64_t saved = 0;
  for (const auto& [id, bytes] : dropped) {
    EXPECT_EQ(kernels->tensor(id).bytes(), bytes) << kernels->tensor(id).name;
    EXPECT_EQ(cudnn->tensor(id).bytes(), 0) << cudnn->tensor(id).name;
    saved += bytes;
  }
  const int64_t stats = L * B * NH * T * 4;
  EXPECT_EQ(cudnn->tensor(CudaTensor::kAttStats).bytes(), stats);
  EXPECT_EQ(cudnn->tensor(CudaTensor::kCudnnWorkspace).bytes(), ws);
  EXPECT_EQ(kernels->tensor(CudaTensor::kAttStats).bytes(), 0);
  EXPECT_EQ(kernels->tensor(CudaTensor::kCudnnWorkspace).bytes(), 0);
  // qkvr stays: it holds each layer's unpermuted qkv for cuDNN's backward.
  EXPECT_EQ(cudnn->tensor(CudaTensor::kQkvr).bytes(), L * 3 * BT * C * 2);
  EXPECT_EQ(kernels->arena_bytes - cudnn->arena_bytes, saved - stats - ws);
  EXPECT_GT(saved, int64_t{4000000000});  // over 4 GB less at GPT-2 124M, B=12, T=1024
}

TEST(CudaMemory, TensorsAreAlignedDisjointAndInsideTheArena) {
  for (StorageType st : {StorageType::kFp32, StorageType::kBf16}) {
    GptConfig c = *GptPreset("test-tiny");
    absl::StatusOr<CudaMemoryPlan> plan = PlanCudaMemory(c, 3, 7, st, 0);  // odd sizes
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan->tensors.size(), static_cast<size_t>(kNumCudaTensors));
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (int i = 0; i < kNumCudaTensors; ++i) {
      const PlannedTensor& t = plan->tensors[i];
      EXPECT_EQ(static_cast<int>(t.id), i);
      EXPECT_EQ(t.offset % kTensorAlignment, 0) << t.name;
      EXPECT_EQ(t.layer_stride % kTensorAlignment, 0) << t.name;
      EXPECT_GE(t.layer_stride, t.elements * t.element_bytes) << t.name;
      EXPECT_LE(t.offset + t.bytes(), plan->arena_bytes) << t.name;
      if (t.bytes() > 0) ranges.push_back({t.offset, t.offset + t.bytes()});
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);
    // The bf16 weight copy exists only in bf16 mode.
    EXPECT_EQ(plan->tensor(CudaTensor::kParamsBf16).layers, st == StorageType::kBf16 ? 1 : 0);
    EXPECT_EQ(plan->tensor(CudaTensor::kAtt).layers, c.layers);
    EXPECT_EQ(plan->tensor(CudaTensor::kAtt).elements, int64_t{3} * c.heads * 7 * 7);
  }
}

TEST(CudaMemory, Fp32DoublesTheScratch) {
  const GptConfig c = Gpt2();
  auto bf16 = PlanCudaMemory(c, 4, 256, StorageType::kBf16, 0);
  auto fp32 = PlanCudaMemory(c, 4, 256, StorageType::kFp32, 0);
  ASSERT_TRUE(bf16.ok() && fp32.ok());
  const int a = static_cast<int>(MemoryGroup::kScratch);
  EXPECT_EQ(fp32->group_bytes[a], 2 * bf16->group_bytes[a]);
  EXPECT_EQ(fp32->group_bytes[static_cast<int>(MemoryGroup::kWeightCopy)], 0);
}

TEST(CudaMemory, InvalidShapesAreErrors) {
  const GptConfig c = Gpt2();
  EXPECT_FALSE(PlanCudaMemory(c, 0, 1024, StorageType::kBf16, 0).ok());
  absl::StatusOr<CudaMemoryPlan> too_long = PlanCudaMemory(c, 1, 2048, StorageType::kBf16, 0);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("2048"), absl::string_view::npos);
}

TEST(CudaMemory, CheckFitsSaysWhatIsNeededAndFree) {
  absl::StatusOr<CudaMemoryPlan> plan =
      PlanCudaMemory(Gpt2(), 12, 1024, StorageType::kBf16, kCublasLtWorkspaceBytes);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(CheckFits(*plan, plan->total_bytes(), plan->total_bytes(), "H200").ok());
  const int64_t free_bytes = int64_t{8} << 30, total = int64_t{16} << 30;
  absl::Status st = CheckFits(*plan, free_bytes, total, "GPU 0 (small)");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(st.message());
  EXPECT_NE(msg.find(std::to_string(plan->total_bytes()) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(free_bytes) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPU 0 (small)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("activations"), std::string::npos) << msg;
}

TEST(CudaMemory, DescribeNamesEveryGroupAndTheTotal) {
  absl::StatusOr<CudaMemoryPlan> plan =
      PlanCudaMemory(Gpt2(), 12, 1024, StorageType::kBf16, kCublasLtWorkspaceBytes);
  ASSERT_TRUE(plan.ok());
  const std::string d = plan->Describe();
  for (const char* part :
       {"params 497.9 MB", "grads 497.9 MB", "AdamW m+v 995.8 MB", "bf16 weights 249.0 MB", "activations",
        "scratch", "cuBLASLt workspace 33.6 MB", "total", "bf16 activations"}) {
    EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
  }
  EXPECT_EQ(FormatBytes(17), "17 B");
  EXPECT_EQ(FormatBytes(1500), "1.5 kB");
  EXPECT_EQ(FormatBytes(int64_t{12345678901}), "12.35 GB");
}

// The memory plan follows the switches: no LayerNorm means, the RoPE tables, SwiGLU's 2F up GEMM
// output and its F-wide backward scratch, qkv rows of C + 2 * KV * hs.
TEST(CudaMemory, LlamaPlanFollowsTheSwitches) {
  const GptConfig c = *GptPreset("llama-124m");
  const int B = 2, T = 64;
  absl::StatusOr<CudaMemoryPlan> plan = PlanCudaMemory(c, B, T, StorageType::kBf16, 0);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const int64_t BT = B * T, C = 768, hs = 64, QKV = C + 2 * 4 * hs, F = 2048;
  for (CudaTensor id : {CudaTensor::kLn1Mean, CudaTensor::kLn2Mean, CudaTensor::kLnfMean}) {
    EXPECT_EQ(plan->tensor(id).bytes(), 0) << plan->tensor(id).name;
  }
  EXPECT_EQ(plan->tensor(CudaTensor::kRopeCos).bytes(), T * hs / 2 * 4);
  EXPECT_EQ(plan->tensor(CudaTensor::kFch).elements, BT * 2 * F);
  EXPECT_EQ(plan->tensor(CudaTensor::kFchGelu).elements, BT * F);
  EXPECT_EQ(plan->tensor(CudaTensor::kDFchAct).elements, BT * F);
  EXPECT_EQ(plan->tensor(CudaTensor::kQkv).elements, BT * QKV);
  EXPECT_EQ(plan->tensor(CudaTensor::kDQkv).elements, BT * QKV);
  EXPECT_EQ(plan->tensor(CudaTensor::kQkvr).elements, 3 * BT * C);  // K/V expanded for the kernels
  absl::StatusOr<CudaMemoryPlan> cudnn =
      PlanCudaMemory(c, B, T, StorageType::kBf16, 0, AttentionMemory{true, 0});
  ASSERT_TRUE(cudnn.ok());
  EXPECT_EQ(cudnn->tensor(CudaTensor::kQkvr).elements, BT * QKV);  // cuDNN reads the GEMM's rows
}

// A recompute level keeps one layer's copy of what it recomputes (the CPU model's rule): gelu the
// activation output, attention the scores, statistics and output, block every per-layer tensor
// but the block outputs; the rest of the plan is none's.
TEST(CudaMemory, RecomputeLevelsKeepOneCopyOfWhatTheyRecompute) {
  using R = accounting::Recompute;
  const GptConfig c = Gpt2();
  const int B = 2, T = 64, L = 12;
  auto plan = [&](R r) { return *PlanCudaMemory(c, B, T, StorageType::kBf16, 0, {}, r); };
  const CudaMemoryPlan none = plan(R::kNone), gelu = plan(R::kActivation), attention = plan(R::kAttention),
                       block = plan(R::kBlock);
  EXPECT_EQ(none.tensor(CudaTensor::kFchGelu).layers, L);
  EXPECT_EQ(gelu.tensor(CudaTensor::kFchGelu).layers, 1);
  EXPECT_EQ(gelu.tensor(CudaTensor::kFch).layers, L);  // GeLU's input is kept
  EXPECT_EQ(attention.tensor(CudaTensor::kAtt).layers, 1);
  EXPECT_EQ(attention.tensor(CudaTensor::kAtty).layers, 1);
  EXPECT_EQ(attention.tensor(CudaTensor::kQkvr).layers, L);  // q, k, v are kept
  for (CudaTensor id : {CudaTensor::kLn1, CudaTensor::kQkvr, CudaTensor::kAtt, CudaTensor::kLn2, CudaTensor::kFch,
                        CudaTensor::kFchGelu, CudaTensor::kResidual2}) {
    EXPECT_EQ(block.tensor(id).layers, 1) << block.tensor(id).name;
  }
  EXPECT_EQ(block.tensor(CudaTensor::kResidual3).layers, L);  // the blocks' inputs of the next
  // Only the activations change, by exactly the layers dropped.
  const int64_t fch_gelu = none.tensor(CudaTensor::kFchGelu).layer_stride;
  EXPECT_EQ(none.arena_bytes - gelu.arena_bytes, (L - 1) * fch_gelu);
  for (const CudaMemoryPlan* p : {&gelu, &attention, &block}) {
    EXPECT_EQ(p->group_bytes[static_cast<int>(MemoryGroup::kParams)],
              none.group_bytes[static_cast<int>(MemoryGroup::kParams)]);
    EXPECT_EQ(p->group_bytes[static_cast<int>(MemoryGroup::kScratch)],
              none.group_bytes[static_cast<int>(MemoryGroup::kScratch)]);
    EXPECT_LT(p->group_bytes[static_cast<int>(MemoryGroup::kActivations)],
              none.group_bytes[static_cast<int>(MemoryGroup::kActivations)]);
  }
  EXPECT_LT(block.group_bytes[static_cast<int>(MemoryGroup::kActivations)],
            gelu.group_bytes[static_cast<int>(MemoryGroup::kActivations)]);
}

}  // namespace
}  // namespace cuda
}  // namespace model
