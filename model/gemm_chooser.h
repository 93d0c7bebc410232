// --cpu_gemm=auto: for each GEMM shape, the fastest of the concrete backends (onednn,
// onednn_sgemm, openblas; cpu_gemm_backend.h says what each computes) on this machine.
//
// Each candidate's rate comes from a ceilings file (gemm_flops_per_s, keyed StepGemm::Key) when
// the file has it, else it is measured here: every candidate first runs once and is checked
// against a double reference, then the candidates take turns, one call each per round, so a
// slow minute of a shared VM hits them alike; the choice goes by the median of the rounds
// (OpenBLAS's isolated rate swings by 1.7x between runs minutes apart on a 2-core VM, so one
// best-of-N would choose by luck). The best call is kept too: it is the shape's ceiling, as
// //micro:ceilings records it.
#ifndef MODEL_GEMM_CHOOSER_H_
#define MODEL_GEMM_CHOOSER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/cpu_gemm_backend.h"
#include "model/step_gemms.h"

namespace model {

struct GemmCandidateRate {
  CpuGemmBackend backend = CpuGemmBackend::kOneDnn;
  double median_flops_per_s = 0;  // what the choice compares
  double best_flops_per_s = 0;    // the ceiling (a file's figure is both)
  bool from_file = false;
};

struct GemmChoice {
  StepGemm gemm;
  std::vector<GemmCandidateRate> candidates;
  int chosen = 0;  // index into candidates
  const GemmCandidateRate& rate() const { return candidates[chosen]; }
  CpuGemmBackend backend() const { return rate().backend; }
};

// The index of the fastest candidate by median (the first of equals); -1 when none has a rate.
int FastestCandidate(const std::vector<GemmCandidateRate>& candidates);

// Rates for every (gemm, candidate) and the choice per gemm. `candidates`: concrete backends
// (one of them for a fixed --cpu_gemm, all three for auto). file_rates: a ceilings file's
// gemm_flops_per_s (may be empty). rounds: timed calls per measured candidate (at least 1).
// *source says where the rates came from. Errors: a candidate that is auto, a wrong result.
absl::StatusOr<std::vector<GemmChoice>> ChooseCpuGemms(const std::vector<StepGemm>& gemms,
                                                       const std::vector<CpuGemmBackend>& candidates,
                                                       const std::map<std::string, double>& file_rates, int rounds,
                                                       std::string* source);

// Publishes the choices for auto (SetCpuGemmChoices).
absl::Status ApplyCpuGemmChoices(const std::vector<GemmChoice>& choices);

// One line per shape: "fcproj.bwd_input NN M:256 N:3072 K:768  onednn 179.1  onednn_sgemm 213.2*
// openblas 196.1 GFLOP/s (median)", the chosen one starred.
std::vector<std::string> DescribeGemmChoices(const std::vector<GemmChoice>& choices);

}  // namespace model

#endif  // MODEL_GEMM_CHOOSER_H_
