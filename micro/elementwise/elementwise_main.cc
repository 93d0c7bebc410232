// //micro:elementwise: the memory-bound ops of a transformer on the CPU (OpenMP) and CUDA.
//
//   bazel run //micro:elementwise -- --benchmark_filter='cpu/scale/N:16777216'
//   bazel run //micro:elementwise -- --benchmark_filter=cpu --ceilings=/tmp/ceilings.json
// See elementwise_cases.h for the cases and bench_common.h for the counters; --help for flags.
#include "micro/common/sweep_main.h"
#include "micro/elementwise/elementwise_cases.h"

int main(int argc, char** argv) {
  return micro::RunSweepBinary(micro::BinaryKind::kElementwise, argc, argv,
                               micro::RegisterElementwiseBenchmarks);
}
