// RunSweepBinary (sweep_main.h).
#include "micro/common/sweep_main.h"

#include <string>

#include "benchmark/benchmark.h"
#include "harness/benchmark_main.h"

namespace micro {

int RunSweepBinary(BinaryKind kind, int argc, char** argv, RegisterSweep register_sweep) {
  MicroFlags flags;
  if (int rc = InitMicroBinary(kind, &argc, argv, &flags); rc != 0) return rc;
  const std::string name = BinaryName(kind);
  const RegisteredCases cases =
      register_sweep(flags.sizes, std::make_shared<PeakProvider>(flags.ceilings, flags.cuda_ceilings));
  ReportLeftOutCases(name, cases);
  const int rc = harness::RunSelectedBenchmarks(name);
  benchmark::Shutdown();
  return rc;
}

}  // namespace micro
