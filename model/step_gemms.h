// The Linear-layer GEMMs of one CPU training step (forward, backward-input, backward-weight of
// qkv, attention projection, MLP up and down in every layer, and the classifier), as the model
// issues them through cpu_gemm / matmul_forward, and their rates on this machine, measured by
// running each shape through the very same calls. gpt_step's MFU loss breakdown divides the
// step's GEMM FLOPs by these rates. Attention's per-head products are not listed: they are a
// few percent of the FLOPs at short sequences and are counted with the non-matmul ops.
#ifndef MODEL_STEP_GEMMS_H_
#define MODEL_STEP_GEMMS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/cpu_gemm_backend.h"
#include "model/gpt_config.h"

namespace model {

struct StepGemm {
  std::string name;  // "qkv.fwd", "qkv.bwd_input", "qkv.bwd_weight", "lm_head.fwd", ...
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  bool bias = false;        // forward with the Linear bias (fused on oneDNN)
  bool accumulate = false;  // C += (beta = 1): a weight gradient added to an earlier micro-batch's
                            // (the step's own are written over: CpuStepGemms never sets it)
  int calls = 0;            // per step (the layer count, or 1 for the classifier)
  // The mixed-precision step's GEMM: bf16 A and B, fp32 C, on oneDNN's primitive
  // (matmul_bf16_cpu.h) whatever the fp32 backend.
  bool bf16 = false;

  double flops_per_call() const { return 2.0 * M * N * K; }
  // "onednn/NT/M:256/N:2304/K:768/bias": the key of its rate in a ceilings file
  // ("onednn/bf16/NT/..." for a bf16 GEMM, whatever `backend`).
  std::string Key(CpuGemmBackend backend) const;
};

// The step's GEMMs for batch B and sequence T (fp32 CPU model), 15: 5 Linear shapes (qkv,
// attproj, fc, fcproj, lm_head, at the config's widths) x 3. The sum of calls x flops_per_call is the Linear part of the matmul FLOPs the
// model counts (accounting::FlopCounter).
// bf16: the mixed-precision step's (StepGemm::bf16 set on each).
std::vector<StepGemm> CpuStepGemms(const GptConfig& config, int B, int T, bool bf16 = false);

// Holds `g`'s operands (random values, laid out as the model lays them out) and runs it on the
// backend in force through the model's own call (matmul_forward for the forward, cpu_gemm for
// the backward GEMMs; for a bf16 GEMM matmul_forward_bf16 and OneDnnGemmBf16 on bf16 copies of
// the operands, checked against double on the bf16 values).
class StepGemmRunner {
 public:
  explicit StepGemmRunner(const StepGemm& g);
  ~StepGemmRunner();
  // One call, its output checked against a double reference at sampled entries.
  absl::Status RunAndCheck();
  // One call; its wall time in seconds.
  double TimeOnce();

 private:
  struct Buffers;
  void Run();
  StepGemm g_;
  std::unique_ptr<Buffers> buf_;
};

// The bytes a StepGemmRunner of `g` allocates (its operands, C, and C's starting values for a GEMM
// that adds to C; bf16 copies of A and B for a bf16 GEMM): what measuring a shape's rate at
// start-up takes on top of the model (gpt_session.h counts it before the model is built).
int64_t StepGemmRunnerBytes(const StepGemm& g);

// Runs `g` on the backend in force through the model's own call: one untimed call whose output
// is checked against a double reference at sampled entries (an error if one is off), then
// `trials` timed calls; returns the best FLOP/s (the shape's ceiling, as //micro:ceilings
// takes the best trial).
absl::StatusOr<double> MeasureStepGemmRate(const StepGemm& g, int trials = 5);

}  // namespace model

#endif  // MODEL_STEP_GEMMS_H_
