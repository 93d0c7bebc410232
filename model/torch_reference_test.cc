// The C++ model against PyTorch: model/testdata/gpt_tiny_reference.bin and
// llama_tiny_reference.bin were written by tools/torch/torch_reference.py (run by hand, see its
// docstring) from float32 PyTorch models with the test-tiny preset's shape (GPT-2: LayerNorm,
// learned positions, GeLU, biases, tied head) and the llama-tiny preset's (RMSNorm, RoPE on
// adjacent pairs through torch.view_as_complex, SwiGLU, 2 K/V heads for 4 query heads, no
// biases, untied head), in this model's parameter layout. Compared: logits and loss of a forward
// pass, every parameter's gradient, the loss after one AdamW step and the parameters after two
// (torch.optim.AdamW, decay on the embeddings and Linear weights only).
//
// Tolerances: both sides compute in fp32 with different summation orders (and this side uses
// exp_fast / tanh_fast, < 5e-7 error), so values agree to a few float ulps of the quantities
// summed: 1e-5 absolute + 1e-5 relative on logits and losses. Gradients are smaller and come out
// of longer chains: 1e-6 absolute + 1e-4 relative (the largest are ~0.1, so ~1e-5 absolute).
// AdamW moves each parameter by lr * g / (|g| + eps) (plus decay), whose slope in g is at most
// lr / eps = 1e4 with the fixture's lr = 1e-2, eps = 1e-6: fp32 gradient differences (< 1e-8,
// ~1e-12 on the smallest gradients) move parameters by < 1e-5 over two steps, while a wrong
// rule (decay on norm weights, a missing bias correction) moves them by ~1e-3.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/cpu_model.h"
#include "model/param_layout.h"

namespace model {
namespace {

struct Fixture {
  GptConfig config;
  int B = 0, T = 0, steps = 0;
  AdamWConfig opt;
  Batch batch;
  std::vector<float> params, logits, grads, params_after;
  float loss = 0, loss2 = 0;
};

class Reader {
 public:
  explicit Reader(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  template <typename X>
  bool Read(X* out, size_t n = 1) {
    if (pos_ + n * sizeof(X) > bytes_.size()) return false;
    std::memcpy(out, bytes_.data() + pos_, n * sizeof(X));
    pos_ += n * sizeof(X);
    return true;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::vector<char> bytes_;
  size_t pos_ = 0;
};

// Version 2's switches (after the optimizer's floats): norm, positions, mlp, kv_heads, mlp_hidden
// as int32, rope_theta as float32. Version 1 is GPT-2's switches.
bool ReadSwitches(Reader* r, GptConfig* c) {
  int32_t sw[5];
  float theta = 0;
  if (!r->Read(sw, 5) || !r->Read(&theta)) return false;
  c->norm = sw[0] == 1 ? NormKind::kRmsNorm : NormKind::kLayerNorm;
  c->positions = sw[1] == 1 ? PositionKind::kRope : PositionKind::kLearned;
  c->mlp = sw[2] == 1 ? MlpKind::kSwiglu : MlpKind::kGelu;
  c->kv_heads = sw[3];
  c->mlp_hidden = sw[4];
  c->rope_theta = theta;
  return true;
}

bool Load(const std::string& path, Fixture* f, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::string("cannot open ") + path;
    return false;
  }
  Reader r(std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  char magic[8];
  int32_t h[12];
  float o[5];
  int32_t n = 0;
  if (!r.Read(magic, 8) || std::memcmp(magic, "GPT2REF1", 8) != 0 || !r.Read(h, 12) ||
      (h[0] != 1 && h[0] != 2) || !r.Read(o, 5) || (h[0] == 2 && !ReadSwitches(&r, &f->config)) ||
      !r.Read(&n)) {
    *error = "bad header (want magic GPT2REF1, version 1 or 2)";
    return false;
  }
  f->config.name = "torch-reference";
  f->config.layers = h[1];
  f->config.heads = h[2];
  f->config.width = h[3];
  f->config.vocab = h[4];
  f->config.padded_vocab = h[5];
  f->config.block = h[6];
  f->B = h[7];
  f->T = h[8];
  f->config.bias = h[9] != 0;
  f->config.tie_weights = h[10] != 0;
  f->steps = h[11];
  f->opt.lr = o[0];
  f->opt.beta1 = o[1];
  f->opt.beta2 = o[2];
  f->opt.eps = o[3];
  f->opt.weight_decay = o[4];
  const size_t bt = static_cast<size_t>(f->B) * f->T;
  f->batch.B = f->B;
  f->batch.T = f->T;
  f->batch.inputs.resize(bt);
  f->batch.targets.resize(bt);
  f->params.resize(n);
  f->logits.resize(bt * f->config.padded_vocab);
  f->grads.resize(n);
  f->params_after.resize(n);
  if (!r.Read(f->batch.inputs.data(), bt) || !r.Read(f->batch.targets.data(), bt) ||
      !r.Read(f->params.data(), n) || !r.Read(f->logits.data(), f->logits.size()) || !r.Read(&f->loss) ||
      !r.Read(f->grads.data(), n) || !r.Read(&f->loss2) || !r.Read(f->params_after.data(), n) || !r.AtEnd()) {
    *error = "fixture size does not match its header";
    return false;
  }
  return true;
}

// Max |a - b| over elements failing |a - b| <= atol + rtol |b|, with a count of failures.
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, double atol, double rtol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  int64_t bad = 0, first_bad = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    worst = std::max(worst, d);
    if (d > atol + rtol * std::fabs(want[i])) {
      if (bad++ == 0) first_bad = static_cast<int64_t>(i);
    }
  }
  std::printf("%-28s max |C++ - torch| = %.3e over %zu values\n", what.c_str(), worst, got.size());
  EXPECT_EQ(bad, 0) << what << ": " << bad << " values differ, first at " << first_bad << ": "
                    << got[first_bad] << " vs torch " << want[first_bad];
}

struct Reference {
  const char* path;
  const char* preset;  // the fixture's model is this preset
};

class TorchReference : public ::testing::TestWithParam<Reference> {};

TEST_P(TorchReference, ForwardBackwardAndAdamWMatchPyTorch) {
  const Reference ref = GetParam();
  Fixture f;
  std::string error;
  ASSERT_TRUE(Load(ref.path, &f, &error)) << ref.path << ": " << error;
  // The fixture is the preset, switch for switch.
  const GptConfig preset = *GptPreset(ref.preset);
  EXPECT_EQ(DescribeConfig(f.config),
            absl::StrCat("torch-reference", DescribeConfig(preset).substr(preset.name.size())));

  auto m = MakeCpuModel(f.config, f.B, f.T, /*seed=*/0);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ((*m)->num_params(), static_cast<int64_t>(f.params.size()));
  ASSERT_TRUE((*m)->CopyParamsFromHost(f.params).ok());

  ASSERT_TRUE((*m)->Forward(f.batch).ok());
  std::vector<float> logits;
  ASSERT_TRUE((*m)->CopyLogitsToHost(&logits).ok());
  ExpectClose(logits, f.logits, 1e-5, 1e-5, "logits (B, T, Vp)");
  EXPECT_NEAR((*m)->loss(), f.loss, 1e-5 + 1e-5 * f.loss);
  std::printf("loss: C++ %.7f, torch %.7f\n", (*m)->loss(), f.loss);

  (*m)->ZeroGrad();
  ASSERT_TRUE((*m)->Backward().ok());
  std::vector<float> grads;
  ASSERT_TRUE((*m)->CopyGradsToHost(&grads).ok());
  const ParamLayout layout(f.config);
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    ExpectClose(std::vector<float>(grads.begin() + t.offset, grads.begin() + t.offset + t.size),
                std::vector<float>(f.grads.begin() + t.offset, f.grads.begin() + t.offset + t.size), 1e-6,
                1e-4, "grad " + t.name);
  }

  ASSERT_EQ(f.steps, 2);
  ASSERT_TRUE((*m)->Update(f.opt, 1).ok());
  ASSERT_TRUE((*m)->Forward(f.batch).ok());
  EXPECT_NEAR((*m)->loss(), f.loss2, 1e-5 + 1e-5 * f.loss2);
  std::printf("loss after one AdamW step: C++ %.7f, torch %.7f\n", (*m)->loss(), f.loss2);
  (*m)->ZeroGrad();
  ASSERT_TRUE((*m)->Backward().ok());
  ASSERT_TRUE((*m)->Update(f.opt, 2).ok());
  std::vector<float> params;
  ASSERT_TRUE((*m)->CopyParamsToHost(&params).ok());
  ExpectClose(params, f.params_after, 1e-5, 0, "params after 2 AdamW steps");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TorchReference,
                         ::testing::Values(Reference{"model/testdata/gpt_tiny_reference.bin", "test-tiny"},
                                           Reference{"model/testdata/llama_tiny_reference.bin",
                                                     "llama-tiny"}),
                         [](const ::testing::TestParamInfo<Reference>& info) {
                           return info.index == 0 ? std::string("Gpt2TestTiny") : std::string("LlamaTiny");
                         });

}  // namespace
}  // namespace model
