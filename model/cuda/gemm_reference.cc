// The reference GemmRunner: the GemmSpec semantics of gemm.h as plain loops, accumulating in
// double and rounding once into D's storage type. The host tests run the model's GEMM specs
// through it against the CPU ops, and the kernel emulator uses it in place of cuBLASLt; so,
// like the emulated launches, a call made while the thread captures an emulated graph
// (cuda_emu/capture.h) is recorded with copies of its spec and pointers, and runs at replay.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuda_emu/capture.h"
#include "model/cuda/bf16.h"
#include "model/cuda/gemm.h"
#include "model/gelu_math.h"

namespace model {
namespace cuda {
namespace {

float Load(const void* base, StorageType t, int64_t i) {
  if (t == StorageType::kBf16) return ToFloat(static_cast<const Bf16*>(base)[i]);
  return static_cast<const float*>(base)[i];
}

void Store(void* base, StorageType t, int64_t i, float v) {
  if (t == StorageType::kBf16) {
    static_cast<Bf16*>(base)[i] = FloatToBf16(v);
  } else {
    static_cast<float*>(base)[i] = v;
  }
}

void RunReference(const GemmSpec& s, const GemmPointers& p) {
  for (int64_t batch = 0; batch < s.batch; ++batch) {
    const int64_t oa = batch * s.stride_a, ob = batch * s.stride_b, oc = batch * s.stride_c;
    for (int64_t j = 0; j < s.n; ++j) {
      for (int64_t i = 0; i < s.m; ++i) {
        double acc = 0;
        for (int64_t l = 0; l < s.k; ++l) {
          const int64_t ia = s.trans_a ? l + i * s.lda : i + l * s.lda;
          const int64_t ib = s.trans_b ? j + l * s.ldb : l + j * s.ldb;
          acc += static_cast<double>(Load(p.a, s.ab_type, oa + ia)) * Load(p.b, s.ab_type, ob + ib);
        }
        const int64_t id = oc + i + j * s.ldc;
        double x = s.alpha * acc;
        if (s.beta != 0.0f) x += static_cast<double>(s.beta) * Load(p.c, s.cd_type, id);
        if (s.bias) x += Load(p.bias, s.cd_type, i);
        const int64_t iaux = i + j * s.aux_ld;
        if (s.epilogue == GemmEpilogue::kGeluAux) {
          Store(p.aux, s.cd_type, iaux, static_cast<float>(x));
          x = gelu_tanh(x);
        } else if (s.epilogue == GemmEpilogue::kDGelu) {
          x *= gelu_tanh_grad(static_cast<double>(Load(p.aux, s.cd_type, iaux)));
        }
        Store(p.d, s.cd_type, id, static_cast<float>(x));
      }
    }
  }
}

class ReferenceGemmRunner final : public GemmRunner {
 public:
  const char* name() const override { return "reference"; }
  int64_t workspace_bytes() const override { return 0; }

  bool Supports(const GemmSpec& spec, const GemmPointers&) override { return CheckGemmSpec(spec).empty(); }

  void Run(const GemmSpec& s, const GemmPointers& p) override {
    const std::string error = CheckGemmSpec(s);
    if (!error.empty()) {
      std::fprintf(stderr, "reference gemm: %s: %s\n", DescribeGemm(s).c_str(), error.c_str());
      std::abort();
    }
    if (emu::Capturing()) {
      emu::Record([s, p] { RunReference(s, p); });
      return;
    }
    RunReference(s, p);
  }
};

}  // namespace

std::unique_ptr<GemmRunner> MakeReferenceGemmRunner() { return std::make_unique<ReferenceGemmRunner>(); }

}  // namespace cuda
}  // namespace model
