// The cases of //micro:elementwise, registered by name:
//   BM_Elementwise/<cpu|cuda>/<op>/N:<n>            scale, add, triad, gelu, adamw
//   BM_Elementwise/<cpu|cuda>/<op>/C:<C>/N:<n>      layernorm (C = 768), softmax (C = 1024);
//                                                   n rounded down to whole rows (counter
//                                                   "elements" has the count used)
// Sizes: 2^24 elements (the seed's x * 2 size) plus a sweep (CPU 2^12..2^26, CUDA 2^16..2^26).
// Each case checks its output against the serial reference before timing (a mismatch is an
// error). CPU cases rotate through copies of their arrays spanning at least 4x the last-level
// cache, so every size measures DRAM traffic, not a warm cache (counter "rotation_slices");
// CUDA cases flush the L2 before each timed launch. Timing is manual: names end /manual_time.
#ifndef MICRO_ELEMENTWISE_ELEMENTWISE_CASES_H_
#define MICRO_ELEMENTWISE_ELEMENTWISE_CASES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "micro/common/bench_common.h"
#include "micro/common/cuda_case.h"
#include "micro/elementwise/elementwise.h"

namespace micro {

std::vector<int64_t> CpuElementwiseSizes(SizeSet sizes);
std::vector<int64_t> CudaElementwiseSizes(SizeSet sizes);

// "BM_Elementwise/cpu/scale/N:16777216", "BM_Elementwise/cuda/softmax/C:1024/N:16777216".
std::string ElementwiseCaseName(const char* device, ElementwiseOp op, int64_t requested_n);

// Bytes of array memory one rotation spans on the CPU: 4 x LLC (256 MiB when unknown); quick: 8 MiB.
double CpuRotationFootprint(SizeSet sizes);

// Registers every case (the CUDA ones only where a CUDA device is usable: cuda_case.h); returns
// their names (without the /manual_time suffix) and the CUDA cases left out.
RegisteredCases RegisterElementwiseBenchmarks(SizeSet sizes, std::shared_ptr<PeakProvider> peaks);

}  // namespace micro

#endif  // MICRO_ELEMENTWISE_ELEMENTWISE_CASES_H_
