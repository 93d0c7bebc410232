// CudaCopy (copy_cuda.h) on the CUDA runtime.
#include <cuda_runtime.h>

#include <vector>

#include "micro/ceilings/copy_cuda.h"
#include "micro/common/cuda_check.cuh"
#include "micro/common/cuda_util.cuh"
#include "model/cuda/cuda_check.cuh"

namespace micro {
namespace {

// CudaCopy on the CUDA runtime: `bytes` from src to dst on its own stream.
struct DeviceCopy final : CudaCopy {
  int64_t bytes = 0;
  cudaStream_t stream = nullptr;
  DeviceBuffer src, dst;
  EventTimer timer;
  ~DeviceCopy() override {
    if (stream != nullptr) CUDA_CHECK(cudaStreamDestroy(stream));
  }
  std::string Copy() {
    MICRO_RETURN_IF_ERROR(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    return "";
  }
  std::string TimeOnce(double* seconds) override;
  std::string Verify() override;
};

}  // namespace

std::unique_ptr<CudaCopy> CudaCopy::Create(int64_t bytes, std::string* error) {
  auto fail = [&](const std::string& e) {
    *error = e;
    return std::unique_ptr<CudaCopy>();
  };
  if (bytes < 4096 || bytes % 4 != 0) {
    return fail("copy size " + std::to_string(bytes) + " bytes: need >= 4096 and a multiple of 4");
  }
  auto copy = std::make_unique<DeviceCopy>();
  copy->bytes = bytes;
  std::string e = CheckDeviceMemory(2 * static_cast<size_t>(bytes), "the copy buffers");
  if (!e.empty()) return fail(e);
  cudaError_t err = cudaStreamCreateWithFlags(&copy->stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) return fail(ErrorMessage("cudaStreamCreateWithFlags", err, __FILE__, __LINE__));
  for (std::string r : {copy->src.Allocate(bytes), copy->dst.Allocate(bytes), copy->timer.Init()}) {
    if (!r.empty()) return fail(r);
  }
  e = FillHash<float>(copy->src.as<float>(), bytes / 4, 21, false, copy->stream);
  if (e.empty()) e = FillHash<float>(copy->dst.as<float>(), bytes / 4, 22, false, copy->stream);
  if (!e.empty()) return fail(e);
  return copy;
}

std::string DeviceCopy::TimeOnce(double* seconds) {
  return timer.Time(
      stream, nullptr, [&] { return Copy(); }, seconds);
}

std::string DeviceCopy::Verify() {
  std::string e = Copy();
  if (!e.empty()) return e;
  const int64_t n = bytes / 4;
  const int64_t step = n / 4096 > 0 ? n / 4096 : 1;
  std::vector<float> got(1);
  for (int64_t i = 0; i < n; i += step) {
    MICRO_RETURN_IF_ERROR(
        cudaMemcpyAsync(got.data(), dst.as<float>() + i, sizeof(float), cudaMemcpyDeviceToHost, stream));
    MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    if (got[0] != HashUniform(21, i)) {
      return "device copy wrote " + std::to_string(got[0]) + " at element " + std::to_string(i) +
             ", expected " + std::to_string(HashUniform(21, i));
    }
  }
  return "";
}

}  // namespace micro
