// Device-to-device copy bandwidth (cudaMemcpyAsync), the GPU's measured memory ceiling,
// behind a host-only interface (copy_cuda.cu; copy_cuda_none.cc without the toolkit).
// Counted as 2 x bytes per copy (one read, one write), as STREAM counts copy.
#ifndef MICRO_CEILINGS_COPY_CUDA_H_
#define MICRO_CEILINGS_COPY_CUDA_H_

#include <cstdint>
#include <memory>
#include <string>

namespace micro {

class CudaCopy {
 public:
  // Two buffers of `bytes` (checked against free memory), the source filled with random data.
  static std::unique_ptr<CudaCopy> Create(int64_t bytes, std::string* error);
  ~CudaCopy();
  CudaCopy(const CudaCopy&) = delete;
  CudaCopy& operator=(const CudaCopy&) = delete;

  // Times one copy with cudaEvents (buffers far larger than the L2: no flush needed).
  std::string TimeOnce(double* seconds);
  // Copies, then compares a sample of the destination with the source on the host.
  std::string Verify();

  struct Impl;

 private:
  explicit CudaCopy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace micro

#endif  // MICRO_CEILINGS_COPY_CUDA_H_
