// The table generated from BENCH_BINARIES in tools/BUILD.bazel; see bench_binaries.h.
#include "tools/bench_binaries.h"

namespace bench {
namespace {
// Defines kCompilationMode (const char*) and kKnownBinaries (BenchBinary[], possibly empty,
// with a sentinel entry whose label is empty).
#include "tools/bench_generated.inc"
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

BenchBinary CalibrationBinary() { return {"//tools:bench_calibration", "tools/bench_calibration"}; }

const char* QuickFilter() { return "^BM_Fake/cpu/axpy"; }

const char* CompilationMode() { return kCompilationMode; }

}  // namespace bench
