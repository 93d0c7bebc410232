// //macro:fma_probe (testonly): the fp32 FMA peak measured with N threads, the way a ddp_step
// rank measures its own at start-up (micro::ResolveCpuPeakWithThreads after the thread count is
// set), for tests that check which peak a run divides by.
//
//   fma_probe --threads=N     prints "fma_peak_flops=<FLOP/s> threads=<N>"
#include <cstdio>
#include <cstdlib>
#include <string>

#include "measure/cpu_ceilings.h"
#include "model/threads.h"

int main(int argc, char** argv) {
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--threads=", 0) == 0) {
      char* end = nullptr;
      const long v = std::strtol(a.c_str() + 10, &end, 10);
      if (end == a.c_str() + 10 || *end != '\0' || v < 1 || v > 4096) {
        std::fprintf(stderr, "fma_probe: --threads='%s' is invalid: give an integer 1..4096\n",
                     a.c_str() + 10);
        return 2;
      }
      threads = static_cast<int>(v);
    } else {
      std::fprintf(stderr, "fma_probe: unknown argument '%s' (usage: fma_probe --threads=N)\n", a.c_str());
      return 2;
    }
  }
  if (threads == 0) {
    std::fprintf(stderr, "fma_probe: --threads=N is required\n");
    return 2;
  }
  model::SetNumThreads(threads);
  auto r = micro::ResolveCpuPeakWithThreads("", accounting::Dtype::kFp32, /*with_bandwidth=*/false);
  if (!r.ok()) {
    std::fprintf(stderr, "fma_probe: %s\n", std::string(r.status().message()).c_str());
    return 1;
  }
  std::printf("fma_peak_flops=%.6e threads=%d\n", r->peak.flops_per_s, r->fma_threads);
  return 0;
}
