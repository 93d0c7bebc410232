// Every CUDA op against its CPU twin on random inputs, in fp32 (max relative error ~1e-5) and
// bf16 (~1e-2; inputs are rounded to bf16 first, so only the device's own rounding differs).
// Built twice: ops_emu_test runs the kernels in the emulator (small shapes), ops_cuda_test on
// the GPU (realistic shapes; skipped without a device).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/adamw_cpu.h"
#include "model/attention_cpu.h"
#include "model/crossentropy_cpu.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/attention_cuda.h"
#include "model/cuda/bias_backward_cuda.h"
#include "model/cuda/convert_cuda.h"
#include "model/cuda/crossentropy_cuda.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/gelu_cuda.h"
#include "model/cuda/gemm_spec.h"
#include "model/cuda/layernorm_cuda.h"
#include "model/cuda/matmul_cuda.h"
#include "model/cuda/residual_cuda.h"
#include "model/cuda/test_backend.h"
#include "model/data/rng.h"
#include "model/encoder_cpu.h"
#include "model/gelu_cpu.h"
#include "model/layernorm_cpu.h"
#include "model/matmul_cpu.h"
#include "model/residual_cpu.h"
#include "model/threads.h"

namespace model {
namespace cuda {
namespace {

using test::DeviceBuffer;
using test::Dev;
using test::Host;
using test::MaxRelErr;
using test::Quantized;
using test::ToFloats;
using test::ToStorage;

// The CPU reference runs single-threaded: its OpenMP threads spin-wait, which on a loaded
// machine costs far more than they save on these small shapes.
const bool kOneCpuThread = [] {
  SetNumThreads(1);
  return true;
}();

std::vector<int32_t> RandomTokens(int64_t n, int32_t vocab, uint64_t seed) {
  Rng rng(seed);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<int32_t>(rng.UniformInt(vocab));
  return v;
}

// Tolerance of one output: fp32 ~1e-5; bf16 one rounding (2^-9) plus the inputs' effect.
template <typename S>
double Tol(double fp32 = 2e-5, double bf16 = 1e-2) {
  return std::is_same<S, Bf16>::value ? bf16 : fp32;
}

// Shapes: small in the emulator, GPT-2-like on a GPU.
struct Shape {
  int64_t B, T, C, NH, V, Vp;
  int64_t NKV = 0;  // attention's K/V heads; 0: NH
};
Shape Shapes() {
  if (test::IsEmulated()) return Shape{2, 13, 48, 3, 100, 128};
  return Shape{4, 256, 768, 12, 50257, 50304};
}

template <typename S>
void EncoderMatchesCpu() {
  const Shape s = Shapes();
  const int64_t BT = s.B * s.T;
  auto wte = Quantized<S>(RandomNormals(s.Vp * s.C, 1)), wpe = Quantized<S>(RandomNormals(s.T * s.C, 2));
  auto tokens = RandomTokens(BT, static_cast<int32_t>(s.V), 3);
  tokens[1] = tokens[0];  // a repeated token: two scatter-adds into one row
  std::vector<float> want(BT * s.C);
  ::model::encoder_forward(want.data(), tokens.data(), wte.data(), wpe.data(), s.B, s.T, s.C);
  DeviceBuffer<S> d_wte = Dev<S>(wte), d_wpe = Dev<S>(wpe), d_out(BT * s.C);
  DeviceBuffer<int32_t> d_tok(tokens);
  encoder_forward(d_out.get(), d_tok.get(), d_wte.get(), d_wpe.get(), s.B, s.T, s.C);
  EXPECT_LE(MaxRelErr(Host(d_out), want), Tol<S>(1e-6, 4e-3));

  auto dout = Quantized<S>(RandomNormals(BT * s.C, 4));
  std::vector<float> dwte(s.Vp * s.C, 0.25f), dwpe(s.T * s.C, -0.5f);
  ::model::encoder_backward(dwte.data(), dwpe.data(), dout.data(), tokens.data(), s.B, s.T, s.C);
  DeviceBuffer<float> g_wte(std::vector<float>(s.Vp * s.C, 0.25f));
  DeviceBuffer<float> g_wpe(std::vector<float>(s.T * s.C, -0.5f));
  DeviceBuffer<S> d_dout = Dev<S>(dout);
  encoder_backward(g_wte.get(), g_wpe.get(), d_dout.get(), d_tok.get(), s.B, s.T, s.C);
  EXPECT_LE(MaxRelErr(g_wte.Download(), dwte), 1e-6);
  EXPECT_LE(MaxRelErr(g_wpe.Download(), dwpe), 1e-6);
}

template <typename S>
void LayerNormMatchesCpu() {
  const Shape s = Shapes();
  const int64_t BT = s.B * s.T, C = s.C;
  auto inp = Quantized<S>(RandomNormals(BT * C, 5, 2.0));
  for (int64_t i = 0; i < BT * C; ++i) inp[i] = RoundThrough<S>(inp[i] + 0.3f);  // mean != 0
  auto w = Quantized<S>(RandomNormals(C, 6)), b = Quantized<S>(RandomNormals(C, 7));
  std::vector<float> out(BT * C), mean(BT), rstd(BT);
  ::model::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), s.B, s.T,
                             C);
  DeviceBuffer<S> d_inp = Dev<S>(inp), d_w = Dev<S>(w), d_b = Dev<S>(b), d_out(BT * C);
  DeviceBuffer<float> d_mean(BT), d_rstd(BT);
  layernorm_forward(d_out.get(), d_mean.get(), d_rstd.get(), d_inp.get(), d_w.get(), d_b.get(), s.B, s.T, C);
  EXPECT_LE(MaxRelErr(Host(d_out), out), Tol<S>());
  EXPECT_LE(MaxRelErr(d_mean.Download(), mean), 1e-5);
  EXPECT_LE(MaxRelErr(d_rstd.Download(), rstd), 1e-5);

  // Backward accumulates into dinp, dweight and dbias.
  auto dout = Quantized<S>(RandomNormals(BT * C, 8));
  auto dinp0 = Quantized<S>(RandomNormals(BT * C, 9, 0.1));
  std::vector<float> dinp = dinp0, dw(C, 1.0f), db(C, -1.0f);
  ::model::layernorm_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(),
                              mean.data(), rstd.data(), s.B, s.T, C);
  DeviceBuffer<S> d_dinp = Dev<S>(dinp0), d_dout = Dev<S>(dout);
  DeviceBuffer<float> d_dw(std::vector<float>(C, 1.0f)), d_db(std::vector<float>(C, -1.0f));
  layernorm_backward(d_dinp.get(), d_dw.get(), d_db.get(), d_dout.get(), d_inp.get(), d_w.get(), d_mean.get(),
                     d_rstd.get(), s.B, s.T, C);
  EXPECT_LE(MaxRelErr(Host(d_dinp), dinp), Tol<S>());
  EXPECT_LE(MaxRelErr(d_dw.Download(), dw), Tol<S>(2e-5, 2e-3));
  EXPECT_LE(MaxRelErr(d_db.Download(), db), Tol<S>(2e-5, 2e-3));
  // Without a bias: the bias gradient is skipped.
  layernorm_forward(d_out.get(), d_mean.get(), d_rstd.get(), d_inp.get(), d_w.get(),
                    static_cast<const S*>(nullptr), s.B, s.T, C);
  ::model::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(),
                             static_cast<const float*>(nullptr), s.B, s.T, C);
  EXPECT_LE(MaxRelErr(Host(d_out), out), Tol<S>());
}

template <typename S>
void GeluAndResidualMatchCpu() {
  const Shape s = Shapes();
  const int64_t N = s.B * s.T * 4 * s.C + 3;  // not a multiple of the block
  auto x = Quantized<S>(RandomNormals(N, 10, 2.0)), y = Quantized<S>(RandomNormals(N, 11));
  std::vector<float> out(N), dinp(N), sum(N);
  ::model::gelu_forward(out.data(), x.data(), N);
  ::model::gelu_backward(dinp.data(), x.data(), y.data(), N);
  ::model::residual_forward(sum.data(), x.data(), y.data(), N);
  DeviceBuffer<S> d_x = Dev<S>(x), d_y = Dev<S>(y), d_out(N), d_sum(N);
  gelu_forward(d_out.get(), d_x.get(), N);
  EXPECT_LE(MaxRelErr(Host(d_out), out), Tol<S>(1e-6, 4e-3));
  gelu_backward(d_y.get(), d_x.get(), d_y.get(), N);  // in place: dinp aliases dout
  EXPECT_LE(MaxRelErr(Host(d_y), dinp), Tol<S>(1e-6, 4e-3));
  d_y.Upload(ToStorage<S>(y));
  residual_forward(d_sum.get(), d_x.get(), d_y.get(), N);
  EXPECT_LE(MaxRelErr(Host(d_sum), sum), Tol<S>(1e-7, 4e-3));
}

template <typename S>
void BiasBackwardMatchesCpu() {
  // Enough rows for several row ranges meeting with atomicAdd.
  const int64_t R = test::IsEmulated() ? 520 : 4096, OC = test::IsEmulated() ? 40 : 3 * 768;
  auto dout = Quantized<S>(RandomNormals(R * OC, 12));
  std::vector<float> want(OC, 0.5f);
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t o = 0; o < OC; ++o) want[o] += dout[r * OC + o];
  }
  DeviceBuffer<S> d_dout = Dev<S>(dout);
  DeviceBuffer<float> d_db(std::vector<float>(OC, 0.5f));
  bias_backward(d_db.get(), d_dout.get(), R, OC);
  EXPECT_LE(MaxRelErr(d_db.Download(), want), Tol<S>(2e-5, 1e-4));
}

template <typename S>
void CrossEntropyMatchesCpu(Shape s) {
  const int64_t BT = s.B * s.T;
  auto logits = Quantized<S>(RandomNormals(BT * s.Vp, 13, 3.0));
  auto targets = RandomTokens(BT, static_cast<int32_t>(s.V), 14);
  std::vector<float> losses(BT), lse(BT);
  ::model::crossentropy_forward(losses.data(), lse.data(), logits.data(), targets.data(), s.B, s.T, s.V,
                                s.Vp);
  DeviceBuffer<S> d_logits = Dev<S>(logits);
  DeviceBuffer<int32_t> d_targets(targets);
  DeviceBuffer<float> d_losses(BT), d_lse(BT);
  crossentropy_forward(d_losses.get(), d_lse.get(), d_logits.get(), d_targets.get(), s.B, s.T, s.V, s.Vp);
  EXPECT_LE(MaxRelErr(d_losses.Download(), losses), 1e-5);
  EXPECT_LE(MaxRelErr(d_lse.Download(), lse), 1e-5);

  const float dloss = 1.0f / static_cast<float>(BT);
  ::model::crossentropy_softmax_backward(logits.data(), lse.data(), targets.data(), dloss, s.B, s.T, s.V,
                                         s.Vp);
  crossentropy_softmax_backward(d_logits.get(), d_lse.get(), d_targets.get(), dloss, s.B, s.T, s.V, s.Vp);
  const std::vector<float> grad = Host(d_logits);
  EXPECT_LE(MaxRelErr(grad, logits), Tol<S>(2e-5, 1e-2));
  // Padded columns are exactly zero, and each row's gradient sums to ~0.
  for (int64_t r = 0; r < BT; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < s.Vp; ++i) {
      if (i >= s.V) {
        ASSERT_EQ(grad[r * s.Vp + i], 0.0f);
      }
      sum += grad[r * s.Vp + i];
    }
    // fp32: the softmax sums to 1 up to lse's rounding (~1e-6 at lse ~ 11); bf16: the target
    // element's own rounding (2^-9 of dloss) dominates.
    EXPECT_NEAR(sum, 0.0, Tol<S>(2e-5, 1e-2) * dloss) << "row " << r;
  }
}

// The causal part of each att row (columns 0..t); what lies above is not compared.
std::vector<float> CausalPart(const std::vector<float>& att, int64_t T) {
  std::vector<float> out = att;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t t = (static_cast<int64_t>(i) / T) % T, j = static_cast<int64_t>(i) % T;
    if (j > t) out[i] = 0.0f;
  }
  return out;
}

template <typename S>
void AttentionMatchesCpu(bool tf32, int64_t block, Shape s = Shapes()) {
  const int64_t B = s.B, T = s.T, C = s.C, NH = s.NH, BT = B * T, hs = C / NH;
  const int64_t NKV = s.NKV > 0 ? s.NKV : NH, QKV = C + 2 * NKV * hs;
  const int64_t Tb = AttentionBlock(T, block);
  auto qkv = Quantized<S>(RandomNormals(BT * QKV, 15));
  std::vector<float> out(BT * C), att(B * NH * T * T);
  ::model::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH, NKV);
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  DeviceBuffer<S> d_qkv = Dev<S>(qkv), d_out(BT * C), d_qkvr(3 * BT * C), d_att(B * NH * T * T),
                  d_vaccum(BT * C);
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    attention_forward(d_out.get(), d_qkvr.get(), d_att.get(), d_vaccum.get(), d_qkv.get(), B, T, C, NH, NKV,
                      gemm.get(), tf32, block);
  }
  const double tol = tf32 ? 5e-3 : Tol<S>(2e-5, 2e-2);
  const std::vector<float> got_att = Host(d_att);
  EXPECT_LE(MaxRelErr(CausalPart(got_att, T), att), tol);
  EXPECT_LE(MaxRelErr(Host(d_out), out), tol);
  // Above the diagonal, up to the end of the row's block: exact zeros.
  for (int64_t r = 0; r < B * NH * T; ++r) {
    const int64_t t = r % T;
    for (int64_t j = t + 1; j < AttentionRowLimit(t, T, Tb); ++j) {
      ASSERT_EQ(got_att[r * T + j], 0.0f) << "row " << r << " column " << j;
    }
  }
  // FLOPs issued: the full T x T times the block-causal fraction (all of it when T <= block).
  const double full = 2.0 * B * NH * T * T * hs;
  const double issued = full * AttentionWorkFraction(T, Tb);
  EXPECT_DOUBLE_EQ(counter.by_tag().at("attention_qk"), issued);
  EXPECT_DOUBLE_EQ(counter.by_tag().at("attention_av"), issued);

  auto dout = Quantized<S>(RandomNormals(BT * C, 16));
  std::vector<float> dinp(BT * QKV), datt(B * NH * T * T);
  ::model::attention_backward(dinp.data(), datt.data(), dout.data(), qkv.data(), att.data(), B, T, C, NH,
                              NKV);
  DeviceBuffer<S> d_dout = Dev<S>(dout), d_dinp(BT * QKV), d_dqkvr(3 * BT * C), d_datt(B * NH * T * T),
                  d_dvaccum(BT * C);
  {
    accounting::ScopedFlopCounter scope(&counter);
    attention_backward(d_dinp.get(), d_dqkvr.get(), d_datt.get(), d_dvaccum.get(), d_dout.get(), d_qkvr.get(),
                       d_att.get(), B, T, C, NH, NKV, gemm.get(), tf32, block);
  }
  EXPECT_LE(MaxRelErr(Host(d_dinp), dinp), tf32 ? 1e-2 : Tol<S>(5e-5, 3e-2));
  for (const char* tag : {"attention_datt", "attention_dv", "attention_dq", "attention_dk"}) {
    EXPECT_DOUBLE_EQ(counter.by_tag().at(tag), issued) << tag;
  }
}

// Rows of T = 13 (emulator) take the scalar softmax, of T = 256 (GPU) the 16-byte one.
template <typename S>
void AttentionMatchesCpu() {
  AttentionMatchesCpu<S>(false, 0);
}

// Several query blocks, the last one short: 13 = 4 + 4 + 4 + 1 in the emulator,
// 256 = 4 x 64 on a GPU (and at T = 1024 the model uses 4 x 256).
template <typename S>
void BlockCausalAttentionMatchesCpu() {
  AttentionMatchesCpu<S>(false, test::IsEmulated() ? 4 : 64);
}

// Rows and blocks that allow 16-byte accesses in the emulator too (T = 24, blocks of 8), and
// rows that do not on a GPU (T = 250).
template <typename S>
void AttentionOtherPathMatchesCpu() {
  Shape s = Shapes();
  s.T = test::IsEmulated() ? 24 : 250;
  AttentionMatchesCpu<S>(false, test::IsEmulated() ? 8 : 100, s);
}

// Grouped-query attention: K/V heads shared by groups of query heads (4 per K/V head on a GPU, as
// llama3-8b's, 2 in the emulator), then multi-query attention (one K/V head), with query blocks.
// The kernels expand K/V in the permute and sum dk, dv over each group in its backward.
template <typename S>
void GroupedQueryAttentionMatchesCpu() {
  Shape s = Shapes();
  s.NH = test::IsEmulated() ? 4 : 12;  // head size 12 (emulator) or 64 (GPU)
  s.NKV = test::IsEmulated() ? 2 : 3;
  AttentionMatchesCpu<S>(false, 0, s);
  s.NKV = 1;
  AttentionMatchesCpu<S>(false, test::IsEmulated() ? 4 : 64, s);
}

// Padded vocab a multiple of 8 (16-byte rows) and not.
template <typename S>
void CrossEntropyMatchesCpu() {
  Shape s = Shapes();
  CrossEntropyMatchesCpu<S>(s);
  s.V = s.V / 2 + 1;
  s.Vp = s.V;  // no padding, odd rows: the scalar kernels
  CrossEntropyMatchesCpu<S>(s);
}

template <typename S>
void MatmulMatchesCpu() {
  const Shape s = Shapes();
  const int64_t B = s.B, T = s.T, C = s.C, OC = 4 * s.C, BT = B * T;
  auto inp = Quantized<S>(RandomNormals(BT * C, 17)), w = Quantized<S>(RandomNormals(OC * C, 18, 0.1)),
       bias = Quantized<S>(RandomNormals(OC, 19)), res = Quantized<S>(RandomNormals(BT * OC, 20));
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  DeviceBuffer<S> d_inp = Dev<S>(inp), d_w = Dev<S>(w), d_bias = Dev<S>(bias), d_res = Dev<S>(res),
                  d_out(BT * OC), d_aux(BT * OC);
  // out = inp w^T + bias + residual, counted like the CPU.
  std::vector<float> want(BT * OC);
  accounting::FlopCounter cpu, gpu;
  {
    accounting::ScopedFlopCounter scope(&cpu);
    ::model::matmul_forward(want.data(), inp.data(), w.data(), bias.data(), B, T, C, OC, "fc");
  }
  for (int64_t i = 0; i < BT * OC; ++i) want[i] += res[i];
  {
    accounting::ScopedFlopCounter scope(&gpu);
    matmul_forward(d_out.get(), d_inp.get(), d_w.get(), d_bias.get(), d_res.get(), static_cast<S*>(nullptr),
                   B, T, C, OC, gemm.get(), false, "fc");
  }
  EXPECT_LE(MaxRelErr(Host(d_out), want), Tol<S>(2e-5, 1e-2));
  EXPECT_EQ(gpu.by_tag(), cpu.by_tag());

  // The fused GeLU epilogue, where the runner has it (cuBLASLt: bf16).
  const GemmCall fused = LinearForward(d_out.get(), d_inp.get(), d_w.get(), d_bias.get(), nullptr,
                                       d_aux.get(), B * T, C, OC, StorageOf<S>(), false);
  if (gemm->Supports(fused.spec, fused.ptrs)) {
    matmul_forward(d_out.get(), d_inp.get(), d_w.get(), d_bias.get(), static_cast<const S*>(nullptr),
                   d_aux.get(), B, T, C, OC, gemm.get(), false, "fc");
    std::vector<float> pre(BT * OC), act(BT * OC);
    ::model::matmul_forward(pre.data(), inp.data(), w.data(), bias.data(), B, T, C, OC, "fc");
    ::model::gelu_forward(act.data(), pre.data(), BT * OC);
    EXPECT_LE(MaxRelErr(Host(d_aux), pre), Tol<S>(2e-5, 1e-2));
    // cuBLASLt may compute the GeLU with the hardware tanh approximation (~1e-3 relative).
    EXPECT_LE(MaxRelErr(Host(d_out), act), Tol<S>(test::IsEmulated() ? 2e-5 : 2e-3, 1e-2));
  } else {
    std::printf("[ %s ] no fused GeLU epilogue for %s\n", test::BackendName(),
                DescribeGemm(fused.spec).c_str());
  }

  // Backward: dinp overwritten, dweight and dbias accumulated, FLOPs as the CPU's.
  auto dout = Quantized<S>(RandomNormals(BT * OC, 21));
  std::vector<float> dinp(BT * C), dw(OC * C, 0.5f), db(OC, 0.25f);
  cpu.Reset();
  gpu.Reset();
  {
    accounting::ScopedFlopCounter scope(&cpu);
    ::model::matmul_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), B, T, C,
                             OC, "fc.bwd");
  }
  DeviceBuffer<S> d_dout = Dev<S>(dout), d_dinp(BT * C);
  DeviceBuffer<float> d_dw(std::vector<float>(OC * C, 0.5f)), d_db(std::vector<float>(OC, 0.25f));
  {
    accounting::ScopedFlopCounter scope(&gpu);
    matmul_backward(d_dinp.get(), d_dw.get(), d_db.get(), d_dout.get(), d_inp.get(), d_w.get(),
                    static_cast<const S*>(nullptr), B, T, C, OC, gemm.get(), false, "fc.bwd");
  }
  EXPECT_LE(MaxRelErr(Host(d_dinp), dinp), Tol<S>(2e-5, 1e-2));
  EXPECT_LE(MaxRelErr(d_dw.Download(), dw), Tol<S>(2e-5, 1e-2));
  EXPECT_LE(MaxRelErr(d_db.Download(), db), Tol<S>(2e-5, 1e-3));
  EXPECT_EQ(gpu.by_tag(), cpu.by_tag());
  EXPECT_EQ(gpu.matmul_calls(), 2);
}

TEST(OpsTest, AdamWMatchesCpuAndWritesTheBf16Copy) {
  SKIP_WITHOUT_DEVICE();
  const int64_t n = test::IsEmulated() ? 3000 : 1 << 22;
  auto p = RandomNormals(n, 22), g = RandomNormals(n, 23), m = RandomNormals(n, 24, 0.1),
       v = RandomNormals(n, 25);
  for (auto& x : v) x = x * x;  // second moments are >= 0
  DeviceBuffer<float> d_p(p), d_g(g), d_m(m), d_v(v);
  DeviceBuffer<Bf16> d_copy(n);
  // One argument block in device memory, rewritten before each step (as before a graph replay):
  // the kernel must read each step's values there. The second half is a range without weight
  // decay (biases, LayerNorm gains), and the learning rate changes from step to step.
  DeviceBuffer<AdamWStepArgs> d_args(1);
  const int64_t half = n / 2;
  for (int step = 1; step <= 3; ++step) {
    const float lr = 1e-3f * static_cast<float>(step);
    ::model::adamw_update(p.data(), g.data(), m.data(), v.data(), half, lr, 0.9f, 0.95f, 1e-8f, 0.1f, step);
    ::model::adamw_update(p.data() + half, g.data() + half, m.data() + half, v.data() + half, n - half, lr,
                          0.9f, 0.95f, 1e-8f, 0.0f, step);
    d_args.Upload({MakeAdamWStepArgs(lr, 0.9f, 0.95f, 1e-8f, 0.1f, step)});
    adamw_update(d_p.get(), d_copy.get(), d_g.get(), d_m.get(), d_v.get(), half, d_args.get(), true);
    adamw_update(d_p.get() + half, d_copy.get() + half, d_g.get() + half, d_m.get() + half, d_v.get() + half,
                 n - half, d_args.get(), false);
  }
  EXPECT_LE(MaxRelErr(d_p.Download(), p), 1e-6);
  EXPECT_LE(MaxRelErr(d_m.Download(), m), 1e-6);
  EXPECT_LE(MaxRelErr(d_v.Download(), v), 1e-6);
  const std::vector<float> copy = ToFloats(d_copy.Download());
  EXPECT_EQ(copy, Quantized<Bf16>(d_p.Download()));
}

TEST(OpsTest, ConvertToBf16RoundsToNearestEven) {
  SKIP_WITHOUT_DEVICE();
  auto x = RandomNormals(test::IsEmulated() ? 1000 : 1 << 20, 26, 100.0);
  DeviceBuffer<float> d_x(x);
  DeviceBuffer<Bf16> d_y(x.size());
  convert_to_bf16(d_y.get(), d_x.get(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(ToFloats(d_y.Download()), Quantized<Bf16>(x));
}

#define OPS_TESTS(name)       \
  TEST(OpsTest, name##Fp32) { \
    SKIP_WITHOUT_DEVICE();    \
    name<float>();            \
  }                           \
  TEST(OpsTest, name##Bf16) { \
    SKIP_WITHOUT_DEVICE();    \
    name<Bf16>();             \
  }

OPS_TESTS(EncoderMatchesCpu)
OPS_TESTS(LayerNormMatchesCpu)
OPS_TESTS(GeluAndResidualMatchCpu)
OPS_TESTS(BiasBackwardMatchesCpu)
OPS_TESTS(CrossEntropyMatchesCpu)
OPS_TESTS(AttentionMatchesCpu)
OPS_TESTS(BlockCausalAttentionMatchesCpu)
OPS_TESTS(AttentionOtherPathMatchesCpu)
OPS_TESTS(GroupedQueryAttentionMatchesCpu)
OPS_TESTS(MatmulMatchesCpu)

TEST(OpsTest, AttentionTf32IsClose) {
  SKIP_WITHOUT_DEVICE();
  AttentionMatchesCpu<float>(/*tf32=*/true, 0);
}

}  // namespace
}  // namespace cuda
}  // namespace model
