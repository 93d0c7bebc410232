// The CPU's mixed-precision (bf16) step: the conversion's rounding, bf16 GEMMs against fp32 within
// bf16's tolerance, and the bf16 model's losses within 2% of fp32's over 10 steps from one seed.
// Built twice: as is, and with oneDNN's ISA capped (MLBENCH_ONEDNN_ISA_CAP, set before oneDNN's
// first call): at AVX512_CORE oneDNN emulates bf16 without bf16 units, and the results must still
// be right; at AVX2 it cannot run bf16, and the model must refuse with a clear message.
#include <cmath>
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"
#include "model/bf16.h"
#include "model/adamw_cpu.h"
#include "model/cpu_model.h"
#include "model/crossentropy_cpu.h"
#include "model/data/batch_source.h"
#include "model/gelu_cpu.h"
#include "model/matmul_bf16_cpu.h"
#include "model/matmul_cpu.h"
#include "model/onednn_gemm.h"

#if defined(MLBENCH_ONEDNN_ISA_CAP_AVX2)
#define MLBENCH_ONEDNN_ISA_CAP "AVX2"
#elif defined(MLBENCH_ONEDNN_ISA_CAP_AVX512_CORE)
#define MLBENCH_ONEDNN_ISA_CAP "AVX512_CORE"
#endif
#ifdef MLBENCH_ONEDNN_ISA_CAP
// Before main, so before oneDNN reads it (once, at its first call).
static const int kIsaCapSet = setenv("ONEDNN_MAX_CPU_ISA", MLBENCH_ONEDNN_ISA_CAP, 1);
#endif

namespace model {
namespace {

bool CpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

// Whether oneDNN can run bf16 here; where it cannot, the refusal is checked instead and the
// caller stops.
bool Bf16Runs() {
  absl::StatusOr<std::string> impl = OneDnnBf16Implementation();
#ifdef MLBENCH_ONEDNN_ISA_CAP
  const std::string cap = MLBENCH_ONEDNN_ISA_CAP;
  if (cap == "AVX2") {
    EXPECT_FALSE(impl.ok()) << "bf16 under ONEDNN_MAX_CPU_ISA=AVX2 ran as " << *impl;
    return false;
  }
  if (impl.ok()) {
    EXPECT_TRUE(IsEmulatedBf16(*impl)) << *impl << " under ONEDNN_MAX_CPU_ISA=" << cap;
  }
#endif
  if (!CpuHasAvx512()) {
    EXPECT_FALSE(impl.ok()) << "oneDNN ran bf16 without AVX-512 as " << *impl;
  }
  if (!impl.ok()) {
    const std::string m(impl.status().message());
    EXPECT_NE(m.find("oneDNN cannot run a bf16 matmul here"), std::string::npos) << m;
    EXPECT_NE(m.find("AVX-512"), std::string::npos) << m;
    return false;
  }
  return true;
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(Bf16ToFloat(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to the even one.
  EXPECT_EQ(FloatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  // Just above halfway rounds up.
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(FloatToBf16(-2.0f), 0xc000);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::nanf("")))));
  EXPECT_TRUE(std::isinf(Bf16ToFloat(FloatToBf16(INFINITY))));
  // The array form is the scalar one, element by element.
  std::vector<float> x(100003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.001f * i) * (1 + i % 7);
  std::vector<uint16_t> y(x.size());
  ConvertToBf16(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], FloatToBf16(x[i])) << i;
}

// AdamW with the bf16 copy (non-temporal stores from the first 64-byte boundary of the copy on
// AVX-512): the fp32 update bit for bit, and the copy its rounding, whatever the sizes and the
// copy's alignment (the head before the boundary, the blocks, the tail).
TEST(Bf16, AdamWWithTheCopyIsAdamWThenTheConversion) {
  for (int64_t n : {0, 5, 31, 33, 1024, 3 * 1024 + 77, 100003}) {
    for (int64_t shift : {0, 1, 17, 31}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " shift " << shift);
      std::vector<float> p(n), g(n), m(n), v(n);
      for (int64_t i = 0; i < n; ++i) {
        p[i] = std::sin(0.1f * i);
        g[i] = std::cos(0.37f * i) * 0.01f;
        m[i] = 0.001f * std::sin(0.5f * i);
        v[i] = 1e-5f * (1 + i % 3);
      }
      std::vector<float> p2 = p, m2 = m, v2 = v;
      std::vector<uint16_t> storage(n + 64, 0xffff);
      uint16_t* copy = storage.data() + shift;
      adamw_update_bf16_copy(p.data(), copy, g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 3);
      adamw_update(p2.data(), g.data(), m2.data(), v2.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 3);
      ASSERT_EQ(p, p2);
      ASSERT_EQ(m, m2);
      ASSERT_EQ(v, v2);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(copy[i], FloatToBf16(p[i])) << i;
      for (int64_t i = 0; i < shift; ++i) ASSERT_EQ(storage[i], 0xffff) << "written before the copy";
      for (int64_t i = shift + n; i < n + 64; ++i) ASSERT_EQ(storage[i], 0xffff) << "written past the copy";
    }
  }
}

// The ops that write the next GEMM's bf16 operand themselves: bit for bit the fp32 op and then
// ConvertToBf16 (odd sizes, so the vector loops' remainders run too).
TEST(Bf16, FusedOpsWriteWhatTheFp32OpAndTheConversionWrite) {
  const int64_t n = 3 * 4099;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = std::sin(0.013f * i) * (1 + i % 11) * 0.7f;
  std::vector<float> g32(n), ones(n, 1.0f), grad_want(n);
  std::vector<uint16_t> want(n), got(n, 0xffff);
  gelu_forward(g32.data(), x.data(), n);
  ConvertToBf16(g32.data(), want.data(), n);
  gelu_backward(grad_want.data(), x.data(), ones.data(), n);  // gelu'(x) * 1
  std::vector<float> x_to_grad = x;
  gelu_forward_saving_grad_bf16(got.data(), x_to_grad.data(), n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "gelu " << i;
  EXPECT_EQ(x_to_grad, grad_want) << "the input must be written over with gelu'(x)";

  const int64_t B = 3, T = 5, V = 1001, Vp = 1024;
  std::vector<float> logits(B * T * Vp);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::cos(0.7f * i) * 4;
  std::vector<int32_t> targets(B * T);
  for (int64_t r = 0; r < B * T; ++r) targets[r] = static_cast<int32_t>((r * 331) % V);
  targets[0] = 0;
  targets[1] = static_cast<int32_t>(V - 1);
  std::vector<float> losses(B * T), lse(B * T);
  crossentropy_forward(losses.data(), lse.data(), logits.data(), targets.data(), B, T, V, Vp);
  std::vector<float> d32 = logits;
  const float dloss = 1.0f / (B * T);
  crossentropy_softmax_backward(d32.data(), lse.data(), targets.data(), dloss, B, T, V, Vp);
  std::vector<uint16_t> dwant(d32.size()), dgot(d32.size(), 0xffff);
  ConvertToBf16(d32.data(), dwant.data(), static_cast<int64_t>(d32.size()));
  const std::vector<float> before = logits;
  crossentropy_softmax_backward_bf16(dgot.data(), logits.data(), lse.data(), targets.data(), dloss, B, T, V, Vp);
  for (size_t i = 0; i < dgot.size(); ++i) ASSERT_EQ(dgot[i], dwant[i]) << "dlogits " << i;
  EXPECT_EQ(logits, before) << "the bf16 form must leave the logits as they are";
}

// A Linear layer's forward and backward in bf16 against fp32 on the same fp32 operands: within
// bf16's rounding of the operands (2^-8 relative each) of the sum of |terms|.
TEST(Bf16, LinearMatchesFp32WithinBf16Tolerance) {
  if (!Bf16Runs()) return;
  const int64_t B = 2, T = 24, C = 96, OC = 160, BT = B * T;
  auto fill = [](std::vector<float>& v, int seed) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * (i + 1) * seed) * 0.5f;
  };
  std::vector<float> inp(BT * C), w(OC * C), bias(OC), dout(BT * OC);
  fill(inp, 1);
  fill(w, 2);
  fill(bias, 3);
  fill(dout, 4);
  std::vector<uint16_t> inp16(inp.size()), w16(w.size()), scratch(dout.size());
  ConvertToBf16(inp.data(), inp16.data(), BT * C);
  ConvertToBf16(w.data(), w16.data(), OC * C);

  std::vector<float> out32(BT * OC), out16(BT * OC);
  matmul_forward(out32.data(), inp.data(), w.data(), bias.data(), B, T, C, OC);
  matmul_forward_bf16(out16.data(), inp16.data(), w16.data(), bias.data(), B, T, C, OC);
  const double tol = 3 * std::ldexp(1.0, -8);
  for (int64_t r = 0; r < BT; ++r) {
    for (int64_t o = 0; o < OC; ++o) {
      double scale = std::fabs(bias[o]);
      for (int64_t k = 0; k < C; ++k) scale += std::fabs(inp[r * C + k] * w[o * C + k]);
      ASSERT_NEAR(out16[r * OC + o], out32[r * OC + o], tol * scale) << r << "," << o;
    }
  }
  // Backward, written over: dinp, dweight and dbias.
  std::vector<float> dinp32(BT * C), dw32(OC * C), db32(OC), dinp16(BT * C), dw16(OC * C, NAN), db16(OC, NAN);
  matmul_backward(dinp32.data(), dw32.data(), db32.data(), dout.data(), inp.data(), w.data(), B, T, C, OC,
                  "matmul", GradWrite::kOverwrite);
  matmul_backward_bf16(dinp16.data(), dw16.data(), db16.data(), dout.data(), inp16.data(), w16.data(), B, T, C,
                       OC, scratch.data(), "matmul", GradWrite::kOverwrite);
  for (int64_t r = 0; r < BT; ++r) {
    for (int64_t k = 0; k < C; ++k) {
      double scale = 0;
      for (int64_t o = 0; o < OC; ++o) scale += std::fabs(dout[r * OC + o] * w[o * C + k]);
      ASSERT_NEAR(dinp16[r * C + k], dinp32[r * C + k], tol * scale) << "dinp " << r << "," << k;
    }
  }
  for (int64_t o = 0; o < OC; ++o) {
    for (int64_t k = 0; k < C; ++k) {
      double scale = 0;
      for (int64_t r = 0; r < BT; ++r) scale += std::fabs(dout[r * OC + o] * inp[r * C + k]);
      ASSERT_NEAR(dw16[o * C + k], dw32[o * C + k], tol * scale) << "dweight " << o << "," << k;
    }
    ASSERT_NEAR(db16[o], db32[o], 1e-5) << "dbias " << o;  // summed in fp32 from the fp32 dout
  }
  // Accumulating adds to what is there.
  std::vector<float> dw_twice = dw16;
  matmul_backward_bf16(nullptr, dw_twice.data(), nullptr, dout.data(), inp16.data(), w16.data(), B, T, C, OC,
                       scratch.data(), "matmul", GradWrite::kAccumulate);
  for (size_t i = 0; i < dw16.size(); ++i) ASSERT_NEAR(dw_twice[i], 2 * dw16[i], 1e-5 + 1e-6 * std::fabs(dw16[i]));
  // dout already in bf16 (nullptr fp32 dout): the same GEMMs on the same operands, so the same bits.
  std::vector<float> dinp_pre(BT * C, NAN), dw_pre(OC * C, NAN);
  std::vector<uint16_t> dout16(dout.size());
  ConvertToBf16(dout.data(), dout16.data(), BT * OC);
  matmul_backward_bf16(dinp_pre.data(), dw_pre.data(), nullptr, nullptr, inp16.data(), w16.data(), B, T, C, OC,
                       dout16.data(), "matmul", GradWrite::kOverwrite);
  EXPECT_EQ(dinp_pre, dinp16);
  EXPECT_EQ(dw_pre, dw16);
  testing::FLAGS_gtest_death_test_style = "threadsafe";  // oneDNN's threads are running
  EXPECT_DEATH(matmul_backward_bf16(nullptr, dw_pre.data(), db16.data(), nullptr, inp16.data(), w16.data(), B, T,
                                    C, OC, dout16.data(), "lm_head.bwd", GradWrite::kOverwrite),
               "lm_head.bwd.*a bias gradient needs the fp32 dout");
}

// Ten AdamW steps on one fixed batch from the same seed: the bf16 step's loss within 2% of the
// fp32 step's at every step, while the loss falls (so the steps compared are real training).
void ExpectBf16TracksFp32(const char* preset, int B, int T) {
  SCOPED_TRACE(preset);
  const GptConfig c = *GptPreset(preset);
  auto fp32 = MakeCpuModel(c, B, T, 7);
  auto bf16 = MakeCpuModel(c, B, T, 7, /*bf16_gemms=*/true);
  ASSERT_TRUE(fp32.ok()) << fp32.status();
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  absl::StatusOr<Batch> batch = FixedRandomBatch(B, T, c.vocab, 3);
  ASSERT_TRUE(batch.ok());
  AdamWConfig opt;
  opt.lr = 1e-3f;
  float first = 0, last = 0;
  for (int step = 1; step <= 10; ++step) {
    float loss[2];
    GptModel* models[2] = {fp32->get(), bf16->get()};
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(models[i]->TrainStep(*batch, opt, step).ok());
      loss[i] = models[i]->loss();
    }
    EXPECT_NEAR(loss[1], loss[0], 0.02 * loss[0]) << "step " << step;
    EXPECT_NE(loss[1], loss[0]) << "step " << step << ": the bf16 model computed in fp32";
    if (step == 1) first = loss[0];
    last = loss[0];
  }
  EXPECT_LT(last, 0.97f * first) << "the loss did not fall: nothing was trained";
}

TEST(Bf16, StepLossWithinTwoPercentOfFp32TestTiny) {
  if (!Bf16Runs()) return;
  ExpectBf16TracksFp32("test-tiny", 4, 16);
}

TEST(Bf16, StepLossWithinTwoPercentOfFp32TestMini) {
  if (!Bf16Runs()) return;
  ExpectBf16TracksFp32("test-mini", 4, 64);
}

// Weights written through params_data() (a copy in, DDP's broadcast) reach the bf16 GEMMs at the
// next Forward: the bf16 model with the fp32 model's weights gives its loss within 2%.
TEST(Bf16, WeightsCopiedInReachTheBf16Gemms) {
  if (!Bf16Runs()) return;
  const GptConfig c = *GptPreset("test-tiny");
  auto fp32 = MakeCpuModel(c, 4, 16, 1);
  auto bf16 = MakeCpuModel(c, 4, 16, 2, /*bf16_gemms=*/true);  // another seed: other weights
  ASSERT_TRUE(fp32.ok() && bf16.ok());
  absl::StatusOr<Batch> batch = FixedRandomBatch(4, 16, c.vocab, 3);
  ASSERT_TRUE((*bf16)->Forward(*batch).ok());
  std::vector<float> p;
  ASSERT_TRUE((*fp32)->CopyParamsToHost(&p).ok());
  for (float& x : p) x *= 3;  // weights far from either model's own
  ASSERT_TRUE((*fp32)->CopyParamsFromHost(p).ok());
  ASSERT_TRUE((*bf16)->CopyParamsFromHost(p).ok());
  ASSERT_TRUE((*fp32)->Forward(*batch).ok());
  ASSERT_TRUE((*bf16)->Forward(*batch).ok());
  EXPECT_NEAR((*bf16)->loss(), (*fp32)->loss(), 0.02 * (*fp32)->loss());
}

TEST(Bf16, RefusedWhereOneDnnCannotRunIt) {
  absl::StatusOr<std::string> impl = OneDnnBf16Implementation();
  auto m = MakeCpuModel(*GptPreset("test-tiny"), 2, 8, 1, /*bf16_gemms=*/true);
  EXPECT_EQ(m.ok(), impl.ok());
  if (!impl.ok()) {
    EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(m.status().message().find("oneDNN cannot run a bf16 matmul here"), std::string::npos) << m.status();
  }
}

}  // namespace
}  // namespace model
