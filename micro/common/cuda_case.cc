// CUDA case registration and the left-out note (cuda_case.h).
#include "micro/common/cuda_case.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "harness/benchmark_main.h"

namespace micro {

benchmark::internal::Benchmark* RegisterCudaCase(RegisteredCases* cases, const std::string& name,
                                                 std::function<void(benchmark::State&)> fn) {
  const std::string skip = CudaSkipReason();
  if (!skip.empty()) {
    ++cases->cuda_left_out;
    cases->left_out_reason = skip;
    return nullptr;
  }
  cases->names.push_back(name);
  return benchmark::RegisterBenchmark(name.c_str(), std::move(fn));
}

void ReportLeftOutCases(const std::string& binary, const RegisteredCases& cases) {
  if (cases.cuda_left_out == 0) return;
  const std::string note =
      absl::StrCat(cases.cuda_left_out, " CUDA case(s) not registered: ", cases.left_out_reason);
  std::fprintf(stderr, "%s: %s\n", binary.c_str(), note.c_str());
  harness::SetLeftOutNote(note);
}

}  // namespace micro
