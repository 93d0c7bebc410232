// The table generated from BENCH_BINARIES in tools/bench/BUILD.bazel; see bench_binaries.h.
#include "tools/bench/bench_binaries.h"

namespace bench {
namespace {
// Defines kCompilationMode (const char*) and kKnownBinaries (BenchBinary[], possibly empty,
// with a sentinel entry whose label is empty).
#include "tools/bench/bench_generated.inc"
}  // namespace

const std::vector<BenchBinary>& KnownBinaries() {
  static const std::vector<BenchBinary>* binaries = [] {
    auto* v = new std::vector<BenchBinary>;
    for (const BenchBinary& b : kKnownBinaries) {
      if (!b.label.empty()) v->push_back(b);
    }
    return v;
  }();
  return *binaries;
}

BenchBinary CalibrationBinary() {
  return {"//tools/bench:bench_calibration", "tools/bench/bench_calibration", "tools/bench_calibration"};
}

// Compute (a small and a GPT-2-shaped sgemm, the FMA ceiling), cache-resident memory-bound
// ops (scale, gelu, layernorm) and DRAM bandwidth (STREAM triad): one or two of each kind.
const char* QuickFilter() {
  return "^BM_(Matmul/cpu/(onednn|openblas)/fp32/M:(256/K:256/N:256|1024/K:768/N:768)/"
         "|Elementwise/cpu/(scale|gelu)/N:1048576/"
         "|Elementwise/cpu/layernorm/C:768/N:65536/"
         "|Ceiling/cpu/(fma/avx2|stream_triad)/)";
}

const char* CompilationMode() { return kCompilationMode; }

}  // namespace bench
