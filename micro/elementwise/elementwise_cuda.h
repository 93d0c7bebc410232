// The elementwise ops of elementwise.h as CUDA kernels, behind a host-only interface
// (elementwise_cuda.cu implements it; elementwise_cuda_none.cc without the toolkit).
// Same data layout as the host: big arrays of n elements, small arrays for layernorm, filled
// with the same seeds, so slice 0 of a HostElementwiseData equals the device's inputs.
#ifndef MICRO_ELEMENTWISE_ELEMENTWISE_CUDA_H_
#define MICRO_ELEMENTWISE_ELEMENTWISE_CUDA_H_

#include <memory>
#include <string>

#include "micro/elementwise/elementwise.h"

namespace micro {

class CudaElementwise {
 public:
  // Checks free memory, allocates the arrays and the L2-flush buffer, fills them on the device.
  // nullptr and *error set on failure.
  static std::unique_ptr<CudaElementwise> Create(const ElementwiseProblem& p, std::string* error);
  virtual ~CudaElementwise() = default;

  // Runs the op once and waits.
  virtual std::string RunOnce() = 0;
  // Copies every array to host storage `out` (slice 0; same problem).
  virtual std::string Download(const ElementwiseTensors& out) = 0;
  // Flushes the L2 (outside the timed region), then times one launch with cudaEvents.
  virtual std::string TimeOnce(double* seconds) = 0;
};

}  // namespace micro

#endif  // MICRO_ELEMENTWISE_ELEMENTWISE_CUDA_H_
