// DeviceBuffer, CheckDeviceMemory, L2Flusher and EventTimer (cuda_util.cuh).
#include <cstdio>

#include "micro/common/cuda_util.cuh"
#include "model/cuda/cuda_check.cuh"

namespace micro {

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) CUDA_CHECK(cudaFree(ptr_));
}

std::string DeviceBuffer::Allocate(size_t bytes) {
  if (ptr_ != nullptr) {
    MICRO_RETURN_IF_ERROR(cudaFree(ptr_));
    ptr_ = nullptr;
  }
  MICRO_RETURN_IF_ERROR(cudaMalloc(&ptr_, bytes > 0 ? bytes : 1));
  bytes_ = bytes;
  return "";
}

std::string CheckDeviceMemory(size_t bytes, const std::string& what) {
  size_t free_b = 0, total_b = 0;
  MICRO_RETURN_IF_ERROR(cudaMemGetInfo(&free_b, &total_b));
  const size_t slack = size_t{256} << 20;
  if (bytes + slack > free_b) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "not enough GPU memory for %s: needs %.2f GiB (+0.25 GiB slack), %.2f GiB free "
                  "of %.2f GiB",
                  what.c_str(), bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0);
    return buf;
  }
  return "";
}

std::string L2Flusher::Init() {
  int dev = 0, l2 = 0;
  MICRO_RETURN_IF_ERROR(cudaGetDevice(&dev));
  MICRO_RETURN_IF_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const size_t bytes = 2 * static_cast<size_t>(l2 > 0 ? l2 : (64 << 20));
  return buffer_.Allocate(bytes);
}

std::string L2Flusher::Flush(cudaStream_t stream) {
  value_ = (value_ + 1) & 0xff;
  MICRO_RETURN_IF_ERROR(cudaMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
  return "";
}

EventTimer::~EventTimer() {
  if (start_ != nullptr) CUDA_CHECK(cudaEventDestroy(start_));
  if (stop_ != nullptr) CUDA_CHECK(cudaEventDestroy(stop_));
}

std::string EventTimer::Init() {
  MICRO_RETURN_IF_ERROR(cudaEventCreate(&start_));
  MICRO_RETURN_IF_ERROR(cudaEventCreate(&stop_));
  return "";
}

std::string EventTimer::Time(cudaStream_t stream, L2Flusher* flusher, const std::function<std::string()>& op,
                             double* seconds) {
  if (flusher != nullptr) {
    std::string e = flusher->Flush(stream);
    if (!e.empty()) return e;
  }
  MICRO_RETURN_IF_ERROR(cudaEventRecord(start_, stream));
  std::string e = op();
  if (!e.empty()) return e;
  MICRO_RETURN_IF_ERROR(cudaEventRecord(stop_, stream));
  MICRO_RETURN_IF_ERROR(cudaEventSynchronize(stop_));
  float ms = 0;
  MICRO_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_, stop_));
  *seconds = ms * 1e-3;
  return "";
}

}  // namespace micro
