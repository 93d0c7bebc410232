// CpuStepGemms and MeasureStepGemmRate (step_gemms.h).
#include "model/step_gemms.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "model/cpu_gpt.h"
#include "model/gemm_cpu.h"
#include "model/bf16.h"
#include "model/matmul_bf16_cpu.h"
#include "model/matmul_cpu.h"
#include "model/onednn_gemm.h"

namespace model {

std::string StepGemm::Key(CpuGemmBackend backend) const {
  if (bf16) backend = CpuGemmBackend::kOneDnn;
  return absl::StrCat(CpuGemmBackendName(backend), bf16 ? "/bf16/" : "/", trans_a ? "T" : "N", trans_b ? "T" : "N", "/M:", M,
                      "/N:", N, "/K:", K, bias ? "/bias" : "", accumulate ? "/accumulate" : "");
}

std::vector<StepGemm> CpuStepGemms(const GptConfig& c, int B, int T, bool bf16) {
  const int64_t BT = static_cast<int64_t>(B) * T, C = c.width;
  struct Linear {
    const char* name;
    int64_t in, out;
    bool bias;
    int calls;
  };
  // The config's widths: qkv C -> C + 2 KV hd, fc C -> F (GeLU) or 2F (SwiGLU), fcproj F -> C.
  const Linear linears[] = {{"qkv", C, c.qkv_width(), c.bias, c.layers},
                            {"attproj", C, C, c.bias, c.layers},
                            {"fc", C, c.fc_width(), c.bias, c.layers},
                            {"fcproj", c.hidden(), C, c.bias, c.layers},
                            {"lm_head", C, c.padded_vocab, false, 1}};
  std::vector<StepGemm> out;
  for (const Linear& l : linears) {
    // matmul_forward: out (BT, OC) = inp (BT, C) @ W^T (+ bias)
    StepGemm f;
    f.name = absl::StrCat(l.name, ".fwd");
    f.trans_b = true;
    f.M = BT, f.N = l.out, f.K = l.in;
    f.bias = l.bias;
    f.calls = l.calls;
    // matmul_backward: dinp (BT, C) = dout (BT, OC) @ W (OC, C)
    StepGemm bi;
    bi.name = absl::StrCat(l.name, ".bwd_input");
    bi.M = BT, bi.N = l.in, bi.K = l.out;
    bi.calls = l.calls;
    // dW (OC, C) = dout^T (OC, BT) @ inp (BT, C): written over (beta = 0), as a step's one
    // Backward after ZeroGrad writes it (cpu_gpt.h); only a later micro-batch adds.
    StepGemm bw;
    bw.name = absl::StrCat(l.name, ".bwd_weight");
    bw.trans_a = true;
    bw.M = l.out, bw.N = l.in, bw.K = BT;
    bw.calls = l.calls;
    f.bf16 = bi.bf16 = bw.bf16 = bf16;
    out.push_back(f);
    out.push_back(bi);
    out.push_back(bw);
  }
  return out;
}

struct StepGemmRunner::Buffers {
  AlignedArray<float> a, b, c, c0, bias;
  AlignedArray<uint16_t> a16, b16;  // bf16 GEMMs: the operands as they run
};

StepGemmRunner::StepGemmRunner(const StepGemm& g) : g_(g), buf_(new Buffers) {
  Buffers& u = *buf_;
  u.a = AlignedArray<float>(g.M * g.K);
  u.b = AlignedArray<float>(g.K * g.N);
  u.c = AlignedArray<float>(g.M * g.N);
  // C's starting values matter only to a GEMM that adds to it (beta = 1); the others write C over,
  // and a copy would be the largest buffer here (the classifier's, 618 MB at B*T = 3072).
  if (g.accumulate) u.c0 = AlignedArray<float>(g.M * g.N);
  u.bias = AlignedArray<float>(g.N);
  // Cheap deterministic values in [-1, 1) (a normal generator would take seconds for the
  // classifier's 38M weights).
  auto fill = [](AlignedArray<float>& x, uint64_t seed, float scale) {
    float* p = x.data();
    const int64_t n = x.size();
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      uint64_t h = (static_cast<uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 29;
      p[i] = scale * (static_cast<float>(h >> 40) / 8388608.0f - 1.0f);
    }
  };
  fill(u.a, 1, 1.0f);
  fill(u.b, 2, 0.05f);
  fill(u.bias, 3, 1.0f);
  if (g.accumulate) fill(u.c0, 4, 1.0f);
  if (g.bf16) {
    // The check below reads a and b: make them the bf16 values the GEMM sees.
    u.a16 = AlignedArray<uint16_t>(u.a.size());
    u.b16 = AlignedArray<uint16_t>(u.b.size());
    ConvertToBf16(u.a.data(), u.a16.data(), u.a.size());
    ConvertToBf16(u.b.data(), u.b16.data(), u.b.size());
    for (int64_t i = 0; i < u.a.size(); ++i) u.a.data()[i] = Bf16ToFloat(u.a16.data()[i]);
    for (int64_t i = 0; i < u.b.size(); ++i) u.b.data()[i] = Bf16ToFloat(u.b16.data()[i]);
  }
}

StepGemmRunner::~StepGemmRunner() = default;

void StepGemmRunner::Run() {
  Buffers& u = *buf_;
  if (g_.bf16) {
    if (g_.trans_b && !g_.trans_a) {
      matmul_forward_bf16(u.c.data(), u.a16.data(), u.b16.data(), g_.bias ? u.bias.data() : nullptr, 1, g_.M, g_.K,
                          g_.N, "gemm_rate");
    } else {
      OneDnnGemmShape s = PackedGemmShape(g_.trans_a, g_.trans_b, g_.M, g_.N, g_.K);
      s.bf16 = true;
      s.beta = g_.accumulate ? 1.0f : 0.0f;
      OneDnnGemmBf16(s, u.a16.data(), u.b16.data(), nullptr, u.c.data());
    }
    return;
  }
  if (g_.trans_b && !g_.trans_a) {
    // The forward call itself (bias fused on oneDNN, bias rows first on OpenBLAS).
    matmul_forward(u.c.data(), u.a.data(), u.b.data(), g_.bias ? u.bias.data() : nullptr, 1, g_.M, g_.K, g_.N,
                   "gemm_rate");
  } else {
    cpu_gemm(g_.trans_a, g_.trans_b, g_.M, g_.N, g_.K, 1.0f, u.a.data(), g_.trans_a ? g_.M : g_.K, u.b.data(),
             g_.trans_b ? g_.K : g_.N, g_.accumulate ? 1.0f : 0.0f, u.c.data(), g_.N);
  }
}

absl::Status StepGemmRunner::RunAndCheck() {
  Buffers& u = *buf_;
  if (g_.accumulate) std::copy(u.c0.data(), u.c0.data() + u.c0.size(), u.c.data());
  Run();
  const int64_t lda = g_.trans_a ? g_.M : g_.K, ldb = g_.trans_b ? g_.K : g_.N;
  // Sampled entries (both corners and a scatter through the middle) against double.
  for (int s = 0; s < 16; ++s) {
    const int64_t m = s == 0 ? 0 : s == 1 ? g_.M - 1 : (s * 7919) % g_.M;
    const int64_t n = s == 0 ? 0 : s == 1 ? g_.N - 1 : (s * 104729) % g_.N;
    double want = g_.accumulate ? u.c0.data()[m * g_.N + n] : 0;
    if (g_.bias) want += u.bias.data()[n];
    double sum_abs = std::fabs(want);
    for (int64_t k = 0; k < g_.K; ++k) {
      const double av = g_.trans_a ? u.a.data()[k * lda + m] : u.a.data()[m * lda + k];
      const double bv = g_.trans_b ? u.b.data()[n * ldb + k] : u.b.data()[k * ldb + n];
      want += av * bv;
      sum_abs += std::fabs(av * bv);
    }
    const double got = u.c.data()[m * g_.N + n];
    // fp32 rounding: well under 1e-5 of the absolute sum for these K.
    if (!(std::fabs(got - want) <= 1e-5 * sum_abs + 1e-6)) {
      return absl::InternalError(absl::StrCat(g_.bf16 ? "bf16" : CpuGemmBackendName(GetCpuGemmBackend()),
                                              " GEMM ", g_.name,
                                              " (", g_.Key(GetCpuGemmBackend()), ") is wrong at (", m, ", ",
                                              n, "): got ", got, ", want ", want));
    }
  }
  return absl::OkStatus();
}

double StepGemmRunner::TimeOnce() {
  const auto t0 = std::chrono::steady_clock::now();
  Run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t StepGemmRunnerBytes(const StepGemm& g) {
  const int64_t floats = g.M * g.K + g.K * g.N + g.M * g.N * (g.accumulate ? 2 : 1) + g.N;
  return 4 * floats + (g.bf16 ? 2 * (g.M * g.K + g.K * g.N) : 0);
}

absl::StatusOr<double> MeasureStepGemmRate(const StepGemm& g, int trials) {
  StepGemmRunner runner(g);
  if (auto st = runner.RunAndCheck(); !st.ok()) return st;
  double best = 0;
  for (int i = 0; i < std::max(1, trials); ++i) {
    const double dt = runner.TimeOnce();
    if (dt > 0) best = std::max(best, g.flops_per_call() / dt);
  }
  return best;
}

}  // namespace model
