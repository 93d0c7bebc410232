// //micro:elementwise: the memory-bound ops of a transformer on the CPU (OpenMP) and CUDA.
//
//   bazel run //micro:elementwise -- --benchmark_filter='cpu/scale/N:16777216'
//   bazel run //micro:elementwise -- --benchmark_filter=cpu --ceilings=/tmp/ceilings.json
// See elementwise_cases.h for the cases and bench_common.h for the counters; --help for flags.
#include <cstdio>
#include <memory>

#include "benchmark/benchmark.h"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "micro/common/bench_common.h"
#include "micro/elementwise/elementwise_cases.h"

int main(int argc, char** argv) {
  micro::MicroFlags flags;
  if (int rc = micro::InitMicroBinary(micro::BinaryKind::kElementwise, &argc, argv, &flags);
      rc != 0) {
    return rc;
  }
  const micro::RegisteredCases cases = micro::RegisterElementwiseBenchmarks(
      flags.sizes, std::make_shared<micro::PeakProvider>(flags.ceilings, flags.cuda_ceilings));
  micro::ReportLeftOutCases("elementwise", cases);
  const int rc = harness::RunSelectedBenchmarks("elementwise");
  benchmark::Shutdown();
  return rc;
}
