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
  // Two buffers of `bytes` (checked against free memory), the source filled with random data;
  // nullptr and *error set on failure.
  static std::unique_ptr<CudaCopy> Create(int64_t bytes, std::string* error);
  virtual ~CudaCopy() = default;

  // Times one copy with cudaEvents (buffers far larger than the L2: no flush needed).
  virtual std::string TimeOnce(double* seconds) = 0;
  // Copies, then compares a sample of the destination with the source on the host.
  virtual std::string Verify() = 0;
};

}  // namespace micro

#endif  // MICRO_CEILINGS_COPY_CUDA_H_
