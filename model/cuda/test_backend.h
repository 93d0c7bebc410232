// What the kernel and model tests need from "the device", in two builds of one test source:
// test_backend_emu.cc (the kernel emulator and the reference GEMM: always available) and
// test_backend_cuda.cc (the GPU and cuBLASLt: available when sysinfo::ProbeCuda finds a device).
// Plus small helpers: device buffers filled from host floats, and error metrics.
#ifndef MODEL_CUDA_TEST_BACKEND_H_
#define MODEL_CUDA_TEST_BACKEND_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "model/cuda/bf16.h"
#include "model/cuda/device_api.h"
#include "model/cuda/gemm.h"

namespace model {
namespace cuda {
namespace test {

const char* BackendName();  // "emu" or "cuda"
// "" when kernels can run here; else why not (the ProbeCuda reason).
std::string UnavailableReason();
// The emulator's tests use small shapes; on a GPU the shapes are realistic.
bool IsEmulated();
std::unique_ptr<GemmRunner> MakeGemmRunner();

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    const std::string skip_reason_ = ::model::cuda::test::UnavailableReason();     \
    if (!skip_reason_.empty()) GTEST_SKIP() << "no CUDA device: " << skip_reason_; \
  } while (0)

// n elements of X in device memory (freed on destruction).
template <typename X>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(int64_t n) : n_(n) {
    void* p = nullptr;
    const std::string error = DeviceAlloc(&p, (n > 0 ? n : 1) * static_cast<int64_t>(sizeof(X)));
    if (!error.empty()) {
      std::fprintf(stderr, "DeviceBuffer: %s\n", error.c_str());
      std::abort();
    }
    p_ = static_cast<X*>(p);
  }
  explicit DeviceBuffer(const std::vector<X>& host) : DeviceBuffer(host.size()) { Upload(host); }
  ~DeviceBuffer() { DeviceFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  X* get() const { return p_; }
  int64_t size() const { return n_; }
  void Upload(const std::vector<X>& host) {
    CopyToDevice(p_, host.data(), static_cast<int64_t>(host.size() * sizeof(X)));
  }
  std::vector<X> Download() const {
    std::vector<X> host(static_cast<size_t>(n_));
    CopyToHost(host.data(), p_, n_ * static_cast<int64_t>(sizeof(X)));
    return host;
  }

 private:
  X* p_ = nullptr;
  int64_t n_ = 0;
};

// Host floats rounded through storage S (what the device holds).
template <typename S>
std::vector<float> Quantized(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = RoundThrough<S>(x[i]);
  return out;
}

template <typename S>
std::vector<S> ToStorage(const std::vector<float>& x) {
  std::vector<S> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = FromFloat<S>(x[i]);
  return out;
}

template <typename S>
std::vector<float> ToFloats(const std::vector<S>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = ToFloat(x[i]);
  return out;
}

// A device buffer of storage S holding `host` rounded to S, and a buffer's contents as floats.
template <typename S>
DeviceBuffer<S> Dev(const std::vector<float>& host) {
  return DeviceBuffer<S>(ToStorage<S>(host));
}
template <typename S>
std::vector<float> Host(const DeviceBuffer<S>& d) {
  return ToFloats(d.Download());
}

// max |got - want| / max |want| (infinity if got holds a NaN or the sizes differ).
inline double MaxRelErr(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) || std::isnan(want[i])) return INFINITY;
    diff = std::fmax(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::fmax(scale, std::fabs(static_cast<double>(want[i])));
  }
  return diff / scale;
}

// ||got - want|| / ||want|| (L2; infinity on NaN or size mismatch).
inline double NormRelErr(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0, norm = 1e-300;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) || std::isnan(want[i])) return INFINITY;
    const double d = static_cast<double>(got[i]) - want[i];
    diff += d * d;
    norm += static_cast<double>(want[i]) * want[i];
  }
  return std::sqrt(diff / norm);
}

}  // namespace test
}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_TEST_BACKEND_H_
