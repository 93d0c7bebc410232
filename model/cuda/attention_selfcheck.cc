// The self-check: two AttentionUnderTest implementations (kernels, cuDNN), the random inputs,
// and the comparison.
#include "model/cuda/attention_selfcheck.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/cuda/attention_cuda.h"
#include "model/cuda/attention_cudnn.h"
#include "model/cuda/device_api.h"
#include "model/data/rng.h"

namespace model {
namespace cuda {
namespace {

// Device memory freed on destruction.
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { DeviceFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  absl::Status Allocate(int64_t bytes, const char* what) {
    const std::string error = DeviceAlloc(&p_, std::max<int64_t>(bytes, 1));
    if (!error.empty()) return absl::ResourceExhaustedError(absl::StrCat("allocating ", what, ": ", error));
    MemsetAsync(p_, 0, std::max<int64_t>(bytes, 1));
    return absl::OkStatus();
  }
  template <typename X>
  X* as() const {
    return static_cast<X*>(p_);
  }

 private:
  void* p_ = nullptr;
};

class KernelAttention final : public AttentionUnderTest {
 public:
  KernelAttention(const AttentionShape& s, GemmRunner* gemm) : s_(s), gemm_(gemm) {}
  absl::Status Allocate() {
    const int64_t n = s_.B * s_.T * s_.C(), att = s_.B * s_.NH * s_.T * s_.T, e = sizeof(Bf16);
    for (auto [array, bytes] :
         {std::pair{&qkvr_, 3 * n * e}, std::pair{&att_, att * e}, std::pair{&vaccum_, n * e},
          std::pair{&dqkvr_, 3 * n * e}, std::pair{&datt_, att * e}, std::pair{&dvaccum_, n * e}}) {
      if (auto st = array->Allocate(bytes, "the attention kernels' scratch"); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "kernels"; }
  absl::Status Forward(Bf16* out, const Bf16* qkv) override {
    attention_forward(out, qkvr_.as<Bf16>(), att_.as<Bf16>(), vaccum_.as<Bf16>(), qkv, s_.B, s_.T, s_.C(),
                      s_.NH, s_.kv_heads(), gemm_, /*tf32=*/false);
    return absl::OkStatus();
  }
  absl::Status Backward(Bf16* dqkv, const Bf16* dout, const Bf16*, const Bf16*) override {
    attention_backward(dqkv, dqkvr_.as<Bf16>(), datt_.as<Bf16>(), dvaccum_.as<Bf16>(), dout,
                       static_cast<const Bf16*>(qkvr_.as<Bf16>()), static_cast<const Bf16*>(att_.as<Bf16>()),
                       s_.B, s_.T, s_.C(), s_.NH, s_.kv_heads(), gemm_, /*tf32=*/false);
    return absl::OkStatus();
  }

 private:
  AttentionShape s_;
  GemmRunner* gemm_;
  DeviceArray qkvr_, att_, vaccum_, dqkvr_, datt_, dvaccum_;
};

class CudnnUnderTest final : public AttentionUnderTest {
 public:
  explicit CudnnUnderTest(std::unique_ptr<CudnnAttention> cudnn) : cudnn_(std::move(cudnn)) {}
  absl::Status Allocate() {
    const AttentionShape& s = cudnn_->shape();
    if (auto st = stats_.Allocate(s.B * s.NH * s.T * 4, "cuDNN's statistics"); !st.ok()) return st;
    return workspace_.Allocate(cudnn_->workspace_bytes(), "cuDNN's workspace");
  }
  std::string name() const override { return "cuDNN"; }
  absl::Status Forward(Bf16* out, const Bf16* qkv) override {
    return cudnn_->Forward(out, stats_.as<float>(), qkv, workspace_.as<void>());
  }
  absl::Status Backward(Bf16* dqkv, const Bf16* dout, const Bf16* qkv, const Bf16* out) override {
    return cudnn_->Backward(dqkv, dout, qkv, out, stats_.as<float>(), workspace_.as<void>());
  }

 private:
  std::unique_ptr<CudnnAttention> cudnn_;
  DeviceArray stats_, workspace_;
};

// n standard normal values (model/data/rng.h), rounded to bf16.
std::vector<Bf16> RandomBf16(int64_t n, uint64_t seed) {
  const std::vector<float> x = RandomNormals(n, seed);
  std::vector<Bf16> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = FloatToBf16(x[i]);
  return out;
}

std::vector<float> Download(const Bf16* device, int64_t n) {
  std::vector<Bf16> raw(static_cast<size_t>(n));
  CopyToHost(raw.data(), device, n * static_cast<int64_t>(sizeof(Bf16)));
  std::vector<float> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) out[i] = Bf16ToFloat(raw[i]);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AttentionUnderTest>> MakeKernelAttention(const AttentionShape& shape,
                                                                        GemmRunner* gemm) {
  auto impl = std::make_unique<KernelAttention>(shape, gemm);
  if (auto st = impl->Allocate(); !st.ok()) return st;
  return std::unique_ptr<AttentionUnderTest>(std::move(impl));
}

absl::StatusOr<std::unique_ptr<AttentionUnderTest>> MakeCudnnAttention(const AttentionShape& shape) {
  absl::StatusOr<std::unique_ptr<CudnnAttention>> cudnn = CudnnAttention::Create(shape);
  if (!cudnn.ok()) return cudnn.status();
  auto impl = std::make_unique<CudnnUnderTest>(*std::move(cudnn));
  if (auto st = impl->Allocate(); !st.ok()) return st;
  return std::unique_ptr<AttentionUnderTest>(std::move(impl));
}

absl::StatusOr<AttentionResults> RunAttentionOnce(AttentionUnderTest& impl, const AttentionShape& s,
                                                  uint64_t seed) {
  // q | k | v rows of QKV = C + 2 * NKV * HS (3C with as many K/V heads as query heads).
  const int64_t n = s.B * s.T * s.C(), nqkv = s.B * s.T * s.QKV(), e = sizeof(Bf16);
  const std::vector<Bf16> qkv = RandomBf16(nqkv, seed), dout = RandomBf16(n, seed + 1);
  DeviceArray d_qkv, d_dout, d_out, d_dqkv;
  for (auto [array, bytes] : {std::pair{&d_qkv, nqkv * e}, std::pair{&d_dout, n * e},
                              std::pair{&d_out, n * e}, std::pair{&d_dqkv, nqkv * e}}) {
    if (auto st = array->Allocate(bytes, "the self-check's tensors"); !st.ok()) return st;
  }
  CopyToDevice(d_qkv.as<Bf16>(), qkv.data(), nqkv * e);
  CopyToDevice(d_dout.as<Bf16>(), dout.data(), n * e);
  if (auto st = impl.Forward(d_out.as<Bf16>(), d_qkv.as<Bf16>()); !st.ok()) return st;
  if (auto st = impl.Backward(d_dqkv.as<Bf16>(), d_dout.as<Bf16>(), d_qkv.as<Bf16>(), d_out.as<Bf16>());
      !st.ok())
    return st;
  AttentionResults r;
  r.out = Download(d_out.as<Bf16>(), n);  // waits for the work queued above
  r.dqkv = Download(d_dqkv.as<Bf16>(), nqkv);
  return r;
}

absl::Status CheckAttentionAgainst(AttentionUnderTest& reference, AttentionUnderTest& candidate,
                                   const AttentionShape& shape, uint64_t seed) {
  const std::string what = absl::StrCat(candidate.name(), " vs ", reference.name(), " at ", shape.ToString());
  absl::StatusOr<AttentionResults> want = RunAttentionOnce(reference, shape, seed);
  if (!want.ok())
    return absl::Status(want.status().code(), absl::StrCat(what, ": ", want.status().message()));
  absl::StatusOr<AttentionResults> got = RunAttentionOnce(candidate, shape, seed);
  if (!got.ok()) return absl::Status(got.status().code(), absl::StrCat(what, ": ", got.status().message()));
  const absl::Status same = CompareAttentionResults(shape, *want, *got);
  if (same.ok()) return same;
  return absl::Status(same.code(), absl::StrCat(what, ": ", same.message()));
}

AttentionShape SelfCheckShape(const AttentionShape& model) {
  AttentionShape s = model;
  s.B = 2;
  s.T = std::min<int64_t>(model.T, 128);
  return s;
}

absl::Status CudnnSelfCheck(const AttentionShape& model, GemmRunner* gemm) {
  // The model's own graphs first: a shape cuDNN cannot run fails here, before any comparison.
  if (auto full = CudnnAttention::Create(model); !full.ok()) return full.status();
  const AttentionShape s = SelfCheckShape(model);
  absl::StatusOr<std::unique_ptr<AttentionUnderTest>> kernels = MakeKernelAttention(s, gemm);
  if (!kernels.ok()) return kernels.status();
  absl::StatusOr<std::unique_ptr<AttentionUnderTest>> cudnn = MakeCudnnAttention(s);
  if (!cudnn.ok()) return cudnn.status();
  return CheckAttentionAgainst(**kernels, **cudnn, s, /*seed=*/20240527);
}

}  // namespace cuda
}  // namespace model
