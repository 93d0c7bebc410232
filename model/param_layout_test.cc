// The parameter buffer's layout: contiguous, llm.c's order, shapes, absent biases, decay flags.
#include "model/param_layout.h"

#include "gtest/gtest.h"

namespace model {
namespace {

TEST(ParamLayout, ContiguousInOrderWithShapes) {
  const GptConfig c = *GptPreset("test-tiny");  // L2 H2 C16 Vp64 block16
  const ParamLayout layout(c);
  int64_t offset = 0;
  ASSERT_EQ(static_cast<int>(layout.tensors().size()), kNumParamTensors);
  for (int i = 0; i < kNumParamTensors; ++i) {
    const ParamTensorInfo& t = layout.tensors()[i];
    EXPECT_EQ(static_cast<int>(t.id), i);
    EXPECT_EQ(t.offset, offset) << t.name;
    int64_t size = 1;
    for (int64_t d : t.shape) size *= d;
    EXPECT_EQ(t.size, size) << t.name;
    offset += t.size;
  }
  EXPECT_EQ(layout.num_params(), offset);
  EXPECT_EQ(layout.tensor(ParamId::kQkvw).shape, (std::vector<int64_t>{2, 48, 16}));
  EXPECT_EQ(layout.tensor(ParamId::kFcprojw).shape, (std::vector<int64_t>{2, 16, 64}));
  EXPECT_EQ(layout.tensor(ParamId::kWte).size, 64 * 16);
  EXPECT_EQ(layout.tensor(ParamId::kWpe).size, 16 * 16);
  EXPECT_EQ(layout.tensor(ParamId::kLmHead).size, 0);  // tied
}

TEST(ParamLayout, NoBiasMeansEmptyBiasTensorsAndNullPointers) {
  GptConfig c = *GptPreset("test-tiny");
  c.bias = false;
  const ParamLayout layout(c);
  for (ParamId id : {ParamId::kLn1b, ParamId::kQkvb, ParamId::kAttprojb, ParamId::kLn2b, ParamId::kFcb,
                     ParamId::kFcprojb, ParamId::kLnfb}) {
    EXPECT_EQ(layout.tensor(id).size, 0) << layout.tensor(id).name;
  }
  std::vector<float> buf(layout.num_params());
  const ParamPointers<float> p = PointParams(layout, buf.data());
  EXPECT_EQ(p.qkvb, nullptr);
  EXPECT_EQ(p.lnfb, nullptr);
  EXPECT_EQ(p.lm_head, p.wte);
  EXPECT_EQ(p.qkvw, buf.data() + layout.tensor(ParamId::kQkvw).offset);
}

TEST(ParamLayout, UntiedLmHeadIsItsOwnTensor) {
  GptConfig c = *GptPreset("test-tiny");
  c.tie_weights = false;
  const ParamLayout layout(c);
  std::vector<float> buf(layout.num_params());
  const ParamPointers<float> p = PointParams(layout, buf.data());
  EXPECT_NE(p.lm_head, p.wte);
  EXPECT_EQ(p.lm_head + 64 * 16, buf.data() + layout.num_params());
}

TEST(ParamLayout, WeightDecayOnMatricesOnly) {
  const ParamLayout layout(*GptPreset("test-tiny"));
  for (const ParamTensorInfo& t : layout.tensors()) {
    const bool matrix = t.id == ParamId::kWte || t.id == ParamId::kWpe || t.id == ParamId::kQkvw ||
                        t.id == ParamId::kAttprojw || t.id == ParamId::kFcw || t.id == ParamId::kFcprojw ||
                        t.id == ParamId::kLmHead;
    EXPECT_EQ(t.weight_decay, matrix) << t.name;
  }
}

TEST(ParamLayout, MatmulParamsAreTheWeightsOfTheLinears) {
  const GptConfig c = *GptPreset("test-tiny");
  const int64_t C = c.width;
  EXPECT_EQ(ParamLayout(c).matmul_params(), c.layers * 12 * C * C + c.padded_vocab * C);
}

}  // namespace
}  // namespace model
