// //micro:matmul: C = A B across sizes, oneDNN and OpenBLAS on the CPU, cuBLAS on CUDA.
//
//   bazel run //micro:matmul -- --benchmark_filter=cpu
//   bazel run //micro:matmul -- --benchmark_filter='cpu/(onednn|openblas)/fp32/M:2048/'
//   bazel run //micro:matmul -- --benchmark_filter='cuda/(bf16|fp32)/M:4096' --benchmark_min_time=0.05
//   bazel run //micro:matmul -- --ceilings=/tmp/ceilings.json --benchmark_format=json
// See matmul_cases.h for the cases and bench_common.h for the counters; --help for the flags.
#include "micro/common/sweep_main.h"
#include "micro/matmul/matmul_cases.h"

int main(int argc, char** argv) {
  return micro::RunSweepBinary(micro::BinaryKind::kMatmul, argc, argv, micro::RegisterMatmulBenchmarks);
}
