// //micro:ceilings: the machine's measured ceilings (CPU FMA peak, STREAM bandwidth, GPU copy
// bandwidth and large-GEMM rate), and the JSON file the other benchmarks read.
//
//   bazel run //micro:ceilings -- --ceilings_out=/tmp/ceilings.json
//   bazel run //micro:matmul -- --ceilings=/tmp/ceilings.json --benchmark_filter=cpu
// Exit status 2 when a requested file could not be written (the message says why).
#include <cstdio>

#include "benchmark/benchmark.h"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "micro/ceilings/ceilings_cases.h"
#include "micro/common/bench_common.h"

int main(int argc, char** argv) {
  micro::MicroFlags flags;
  if (int rc = micro::InitMicroBinary(micro::BinaryKind::kCeilings, &argc, argv, &flags); rc != 0) {
    return rc;
  }
  static micro::CeilingRecorder recorder;
  const micro::RegisteredCases cases = micro::RegisterCeilingsBenchmarks(flags.sizes, &recorder);
  micro::ReportLeftOutCases("ceilings", cases);
  const int rc = harness::RunSelectedBenchmarks("ceilings");
  benchmark::Shutdown();
  absl::Status s = micro::WriteRecordedCeilings(recorder, flags);
  if (!s.ok()) {
    return harness::Fail("ceilings", s);
  }
  return rc;
}
