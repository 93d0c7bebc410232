// The Llama family's CUDA ops (RMSNorm, RoPE, SwiGLU, the embedding without a position table)
// against their CPU twins on random inputs, in fp32 (~1e-5) and bf16 (inputs rounded to bf16
// first, so only the device's own rounding differs). Grouped-query attention is in ops_test.cc
// beside the attention it extends. Built twice: llama_ops_emu_test runs the kernels in the
// emulator (small shapes), llama_ops_cuda_test on the GPU (llama-124m-like shapes; skipped
// without a device).
#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/rmsnorm_cuda.h"
#include "model/cuda/rope_cuda.h"
#include "model/cuda/swiglu_cuda.h"
#include "model/cuda/test_backend.h"
#include "model/data/rng.h"
#include "model/encoder_cpu.h"
#include "model/rmsnorm_cpu.h"
#include "model/rope_cpu.h"
#include "model/swiglu_cpu.h"
#include "model/threads.h"

namespace model {
namespace cuda {
namespace {

using test::DeviceBuffer;
using test::Dev;
using test::Host;
using test::MaxRelErr;
using test::Quantized;

// The CPU reference runs single-threaded (its OpenMP threads spin-wait on a loaded machine).
const bool kOneCpuThread = [] {
  SetNumThreads(1);
  return true;
}();

template <typename S>
double Tol(double fp32, double bf16) {
  return std::is_same<S, Bf16>::value ? bf16 : fp32;
}

// Small in the emulator (B*T = 39 rows: more than the 32 row lanes of the ordered column sums;
// C = 48: a partial warp per row); llama-124m's widths on a GPU.
struct Shape {
  int64_t B, T, C, NH, NKV, F;
  int64_t hd() const { return C / NH; }
  int64_t QKV() const { return C + 2 * NKV * hd(); }
};
Shape Shapes() {
  if (test::IsEmulated()) return Shape{3, 13, 48, 4, 2, 40};
  return Shape{4, 256, 768, 12, 4, 2048};
}

template <typename S>
void RmsNormMatchesCpu() {
  const Shape s = Shapes();
  const int64_t BT = s.B * s.T, C = s.C;
  auto inp = Quantized<S>(RandomNormals(BT * C, 31, 2.0));
  for (int64_t i = 0; i < BT * C; ++i) inp[i] = RoundThrough<S>(inp[i] + 0.3f);  // mean != 0: not a LayerNorm
  auto w = Quantized<S>(RandomNormals(C, 32));
  std::vector<float> out(BT * C), rstd(BT);
  ::model::rmsnorm_forward(out.data(), rstd.data(), inp.data(), w.data(), s.B, s.T, C);
  DeviceBuffer<S> d_inp = Dev<S>(inp), d_w = Dev<S>(w), d_out(BT * C);
  DeviceBuffer<float> d_rstd(BT);
  rmsnorm_forward(d_out.get(), d_rstd.get(), d_inp.get(), d_w.get(), s.B, s.T, C);
  EXPECT_LE(MaxRelErr(Host(d_out), out), Tol<S>(2e-5, 1e-2));
  EXPECT_LE(MaxRelErr(d_rstd.Download(), rstd), 1e-5);

  // Backward accumulates into dinp and dweight.
  auto dout = Quantized<S>(RandomNormals(BT * C, 33));
  auto dinp0 = Quantized<S>(RandomNormals(BT * C, 34, 0.1));
  std::vector<float> dinp = dinp0, dw(C, 1.0f);
  ::model::rmsnorm_backward(dinp.data(), dw.data(), dout.data(), inp.data(), w.data(), rstd.data(), s.B, s.T,
                            C);
  DeviceBuffer<S> d_dinp = Dev<S>(dinp0), d_dout = Dev<S>(dout);
  DeviceBuffer<float> d_dw(std::vector<float>(C, 1.0f));
  rmsnorm_backward(d_dinp.get(), d_dw.get(), d_dout.get(), d_inp.get(), d_w.get(), d_rstd.get(), s.B, s.T, C);
  EXPECT_LE(MaxRelErr(Host(d_dinp), dinp), Tol<S>(2e-5, 1e-2));
  const std::vector<float> dw_gpu = d_dw.Download();
  EXPECT_LE(MaxRelErr(dw_gpu, dw), Tol<S>(2e-5, 2e-3));
  // The weight gradient is an ordered sum: a second run adds exactly the same bits again.
  DeviceBuffer<float> d_dw2(std::vector<float>(C, 1.0f));
  rmsnorm_backward(d_dinp.get(), d_dw2.get(), d_dout.get(), d_inp.get(), d_w.get(), d_rstd.get(), s.B, s.T,
                   C);
  const std::vector<float> dw_again = d_dw2.Download();
  EXPECT_EQ(std::memcmp(dw_again.data(), dw_gpu.data(), dw_gpu.size() * sizeof(float)), 0);
}

TEST(LlamaOpsTest, RopeTablesAreTheCpuTables) {
  const int64_t T = 37, hd = 64;
  for (double theta : {10000.0, 500000.0}) {
    std::vector<float> cos(T * hd / 2), sin(cos.size()), want_cos(cos.size()), want_sin(cos.size());
    RopeTablesHost(cos.data(), sin.data(), T, hd, theta);
    rope_table(want_cos.data(), want_sin.data(), T, hd, theta);
    EXPECT_EQ(cos, want_cos) << theta;
    EXPECT_EQ(sin, want_sin) << theta;
  }
}

template <typename S>
void RopeMatchesCpu() {
  const Shape s = Shapes();
  const int64_t BT = s.B * s.T, hd = s.hd(), half = hd / 2, QKV = s.QKV();
  std::vector<float> cos(s.T * half), sin(cos.size());
  RopeTablesHost(cos.data(), sin.data(), s.T, hd, 10000.0);
  DeviceBuffer<float> d_cos(cos), d_sin(sin);
  const auto qkv = Quantized<S>(RandomNormals(BT * QKV, 35));
  std::vector<float> want = qkv;
  ::model::rope_forward(want.data(), cos.data(), sin.data(), s.B, s.T, s.NH, s.NKV, hd);
  DeviceBuffer<S> d_qkv = Dev<S>(qkv);
  rope_forward(d_qkv.get(), d_cos.get(), d_sin.get(), s.B, s.T, s.NH, s.NKV, hd);
  const std::vector<float> got = Host(d_qkv);
  EXPECT_LE(MaxRelErr(got, want), Tol<S>(1e-6, 4e-3));
  // v is untouched, bit for bit; q at position 0 too (angle 0).
  for (int64_t r = 0; r < BT; ++r) {
    for (int64_t c = s.C + s.NKV * hd; c < QKV; ++c) ASSERT_EQ(got[r * QKV + c], qkv[r * QKV + c]);
  }
  for (int64_t c = 0; c < s.C; ++c) ASSERT_EQ(got[c], qkv[c]);

  // Backward rotates a gradient back: against the CPU, and it undoes the forward.
  const auto dqkv = Quantized<S>(RandomNormals(BT * QKV, 36));
  std::vector<float> dwant = dqkv;
  ::model::rope_backward(dwant.data(), cos.data(), sin.data(), s.B, s.T, s.NH, s.NKV, hd);
  DeviceBuffer<S> d_dqkv = Dev<S>(dqkv);
  rope_backward(d_dqkv.get(), d_cos.get(), d_sin.get(), s.B, s.T, s.NH, s.NKV, hd);
  EXPECT_LE(MaxRelErr(Host(d_dqkv), dwant), Tol<S>(1e-6, 4e-3));
  rope_backward(d_qkv.get(), d_cos.get(), d_sin.get(), s.B, s.T, s.NH, s.NKV, hd);
  EXPECT_LE(MaxRelErr(Host(d_qkv), qkv), Tol<S>(1e-6, 8e-3));
}

template <typename S>
void SwigluMatchesCpu() {
  const Shape s = Shapes();
  const int64_t N = s.B * s.T, F = s.F;
  // Gates from -16 to 16: the sigmoid's tails (expf overflowing to inf for g << 0) included.
  auto inp = Quantized<S>(RandomNormals(N * 2 * F, 37, 4.0));
  inp[0] = -16.0f, inp[1] = 16.0f;
  std::vector<float> out(N * F);
  ::model::swiglu_forward(out.data(), inp.data(), N, F);
  DeviceBuffer<S> d_inp = Dev<S>(inp), d_out(N * F);
  swiglu_forward(d_out.get(), d_inp.get(), N, F);
  EXPECT_LE(MaxRelErr(Host(d_out), out), Tol<S>(1e-5, 4e-3));

  // Backward writes dgate | dup over whatever dinp held.
  auto dout = Quantized<S>(RandomNormals(N * F, 38));
  std::vector<float> dinp(N * 2 * F);
  ::model::swiglu_backward(dinp.data(), dout.data(), inp.data(), N, F);
  DeviceBuffer<S> d_dout = Dev<S>(dout), d_dinp = Dev<S>(std::vector<float>(N * 2 * F, 123.0f));
  swiglu_backward(d_dinp.get(), d_dout.get(), d_inp.get(), N, F);
  EXPECT_LE(MaxRelErr(Host(d_dinp), dinp), Tol<S>(1e-5, 4e-3));
}

// RoPE's models have no position table: the embedding is the token's row, its backward leaves
// no position gradient.
template <typename S>
void EncoderWithoutPositionsMatchesCpu() {
  const Shape s = Shapes();
  const int64_t BT = s.B * s.T, Vp = 64;
  auto wte = Quantized<S>(RandomNormals(Vp * s.C, 39));
  std::vector<int32_t> tokens(BT);
  for (int64_t i = 0; i < BT; ++i) tokens[i] = static_cast<int32_t>((i * 7 + 3) % Vp);
  std::vector<float> want(BT * s.C);
  ::model::encoder_forward(want.data(), tokens.data(), wte.data(), static_cast<const float*>(nullptr), s.B,
                           s.T, s.C);
  DeviceBuffer<S> d_wte = Dev<S>(wte), d_out(BT * s.C);
  DeviceBuffer<int32_t> d_tok(tokens);
  encoder_forward(d_out.get(), d_tok.get(), d_wte.get(), static_cast<const S*>(nullptr), s.B, s.T, s.C);
  EXPECT_EQ(Host(d_out), want);  // a copy of the rows

  auto dout = Quantized<S>(RandomNormals(BT * s.C, 40));
  std::vector<float> dwte(Vp * s.C, 0.25f);
  ::model::encoder_backward(dwte.data(), static_cast<float*>(nullptr), dout.data(), tokens.data(), s.B, s.T,
                            s.C);
  DeviceBuffer<float> g_wte(std::vector<float>(Vp * s.C, 0.25f));
  DeviceBuffer<S> d_dout = Dev<S>(dout);
  encoder_backward(g_wte.get(), static_cast<float*>(nullptr), d_dout.get(), d_tok.get(), s.B, s.T, s.C);
  EXPECT_LE(MaxRelErr(g_wte.Download(), dwte), 1e-6);
}

#define LLAMA_OPS_TESTS(name)      \
  TEST(LlamaOpsTest, name##Fp32) { \
    SKIP_WITHOUT_DEVICE();         \
    name<float>();                 \
  }                                \
  TEST(LlamaOpsTest, name##Bf16) { \
    SKIP_WITHOUT_DEVICE();         \
    name<Bf16>();                  \
  }

LLAMA_OPS_TESTS(RmsNormMatchesCpu)
LLAMA_OPS_TESTS(RopeMatchesCpu)
LLAMA_OPS_TESTS(SwigluMatchesCpu)
LLAMA_OPS_TESTS(EncoderWithoutPositionsMatchesCpu)

}  // namespace
}  // namespace cuda
}  // namespace model
