// One train-step benchmark session: the model, its data, the peak it is measured against and
// the FLOPs per step, created once and stepped many times (warm-up, timed steps, profile).
//
// A step is: fetch a batch (data), Forward (forward), ZeroGrad + Backward (backward), AdamW
// (optimizer), then loss() which synchronises the device where there is one. Each phase is timed
// on the device's own clock (macro/step_clock.h); the step's time is the sum of the phases.
// With --cuda_graph the last three are one GptModel::TrainStep (graph): one graph replay once
// captured, so they are timed as one phase.
#ifndef MACRO_GPT_SESSION_H_
#define MACRO_GPT_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"
#include "accounting/disturbed.h"
#include "accounting/peaks.h"
#include "macro/adamw_probe.h"
#include "macro/rank_peak.h"
#include "macro/step_clock.h"
#include "macro/step_memory.h"
#include "macro/step_options.h"
#include "model/data/batch_source.h"
#include "model/gemm_info.h"
#include "model/gpt_model.h"
#include "model/op_timer.h"
#include "model/gemm_chooser.h"
#include "model/step_gemms.h"

namespace macro {

struct StepTimes {
  double data = 0, forward = 0, backward = 0, optimizer = 0;
  double graph = 0;  // --cuda_graph: forward + backward + optimizer as one TrainStep (the others 0)
  // The GEMM ops' own time inside forward + backward (the CPU model's op timer: every
  // matmul_forward/... and matmul_backward/... op); < 0 where not timed (CUDA, --profile).
  double gemm = -1;
  // The same per GEMM op ("matmul_forward/qkv", "matmul_backward/qkv", ...), in first-run order;
  // empty where not timed.
  std::vector<std::pair<std::string, double>> gemm_ops;
  float loss = 0;
  double total() const { return data + forward + backward + optimizer + graph; }
};

// A GEMM of the CPU step, the backend that runs it (--cpu_gemm, or auto's choice) and that
// backend's rate at its shape (gpt_step's MFU loss breakdown and floor).
struct StepGemmRate {
  model::StepGemm gemm;
  double flops_per_s = 0;  // the running backend's best call (its ceiling at this shape)
  bool from_file = false;  // --ceilings' gemm_flops_per_s, else measured at start-up
  model::CpuGemmBackend backend = model::CpuGemmBackend::kOneDnn;
  std::vector<model::GemmCandidateRate> candidates;  // what was compared (one for a fixed --cpu_gemm)

  double flops_per_step() const { return gemm.calls * gemm.flops_per_call(); }
  double seconds_per_step() const { return flops_per_step() / flops_per_s; }  // at this rate
};

class GptSession {
 public:
  // Builds the model on o.device (CUDA device 0) and the batch sources: fixed random always, the
  // token file when o.real_data or o.compare_data. The peak is that device's (rank_peak.h: on the
  // CPU, the peak of the o.threads threads the run uses).
  // `gemm_rates_of` (--recompute=all's later levels): the CPU GEMM rates and choices of an earlier
  // session of the same shapes, kept instead of measured again, so that every level runs each
  // GEMM on the same library (auto's choice decides the rounding: a level that chose differently
  // would end at another loss) and its floor is counted at the same rates.
  struct GemmRates {
    std::vector<StepGemmRate> rates;
    std::string source;
  };
  static absl::StatusOr<std::unique_ptr<GptSession>> Create(const StepOptions& o,
                                                            const GemmRates* gemm_rates_of = nullptr);
  GemmRates gemm_rates_kept() const { return {gemm_rates_, gemm_rates_source_}; }

  // One training step with the chosen data (real = token file). The first call also counts the
  // FLOPs of the matmuls actually issued (accounting::FlopCounter) for HFU.
  absl::StatusOr<StepTimes> Step(bool real_data);

  // Name of the span around each profiled step; its self time is time outside any op.
  static constexpr char kStepSpan[] = "step";

  // --profile: runs kProfileWait + kProfileWarmup + kProfileActive steps and records per-op spans
  // of the active ones into `trace` (with "step" spans around them).
  absl::Status Profile(bool real_data, OpTrace* trace);

  const StepOptions& options() const { return o_; }
  model::GptModel& model() { return *model_; }
  const model::GptModel& model() const { return *model_; }
  int64_t num_params() const { return model_->num_params(); }
  const accounting::StepFlops& flops() const { return flops_; }
  // CPU: the host memory planned for the run at its peak (step_memory.h); empty on CUDA.
  const StepMemoryPlan& memory_plan() const { return memory_plan_; }
  // CUDA: the device memory in use just before the model was made (model::CudaDeviceMemoryInUse;
  // -1 unreadable or on the CPU), the memory ledger's baseline.
  int64_t device_bytes_before_model() const { return device_bytes_before_model_; }
  const accounting::Peak& peak() const { return peak_; }
  // False when the device has no known peak (a GPU missing from the datasheet registry): the
  // steps are timed, and MFU and HFU are "n/a" (peak().source says why).
  bool has_peak() const { return peak_.flops_per_s > 0; }
  // After the timed steps: the peak probed again when it was measured at start-up (rank_peak.h
  // ProbeAgain); peak() becomes the best of the start-up probe and this one, probes() holds both.
  // A figure from --peak_flops, --ceilings or a datasheet stays as it is, without probes.
  absl::Status ProbePeakAgain();
  const accounting::PeakProbes& probes() const { return probes_; }
  double counted_flops_per_step() const { return counted_flops_; }
  int steps_done() const { return steps_done_; }
  bool has_real_data() const { return real_source_ != nullptr; }
  std::string DescribeData(bool real_data) const;
  // CPU only (empty on CUDA): the GEMM library that runs the step, and its rates at the step's
  // GEMM shapes, from --ceilings where the file has them, else measured at start-up.
  const model::GemmInfo& gemm_info() const { return gemm_info_; }
  // What ran the step's GEMMs, for the summary, the JSON label and the start-up line: gemm_info()
  // in fp32; with --dtype=bf16 the Linears' bf16 GEMMs on oneDNN's matmul primitive whatever
  // --cpu_gemm, and --cpu_gemm's library for the attention's fp32 GEMMs (a bf16 run with
  // --cpu_gemm=openblas was labelled OpenBLAS while its Linears ran oneDNN).
  std::string GemmDescription() const;
  const std::vector<StepGemmRate>& gemm_rates() const { return gemm_rates_; }
  const std::string& gemm_rates_source() const { return gemm_rates_source_; }
  // CPU only (0 on CUDA): STREAM triad measured at start-up (measure/stream.h), the bandwidth the
  // step prediction counts the memory-bound ops at.
  double triad_bytes_per_s() const { return triad_bytes_per_s_; }
  // CPU only (0 on CUDA): the in-place memory roof (accounting/memory_roofs.h), measured with the
  // triad: AdamW's roof, the rate the step's floor counts its bytes at.
  double in_place_bytes_per_s() const { return in_place_bytes_per_s_; }
  // Where both come from: "measured at start-up ...", or "from --ceilings=FILE".
  const std::string& triad_source() const { return triad_source_; }
  // CPU only (bytes_per_s 0 on CUDA): AdamW alone at start-up (adamw_probe.h), the rate the step
  // prediction counts the optimizer at.
  const AdamWProbe& adamw_probe() const { return adamw_probe_; }

 private:
  GptSession() = default;
  StepOptions o_;
  std::unique_ptr<model::GptModel> model_;
  std::unique_ptr<model::BatchSource> random_source_, real_source_;
  std::unique_ptr<StepClock> clock_;
  model::Batch batch_;
  accounting::StepFlops flops_;
  accounting::Peak peak_;
  StepMemoryPlan memory_plan_;
  int64_t device_bytes_before_model_ = -1;
  RankPeak run_peak_;  // the start-up choice
  accounting::PeakProbes probes_;
  double counted_flops_ = 0;
  int steps_done_ = 0;
  model::GemmInfo gemm_info_;
  std::vector<StepGemmRate> gemm_rates_;
  std::string gemm_rates_source_;
  double triad_bytes_per_s_ = 0;
  double in_place_bytes_per_s_ = 0;
  std::string triad_source_;
  AdamWProbe adamw_probe_;
  // CPU: times the GEMM ops inside each step (StepTimes::gemm); not while --profile's timer runs.
  std::unique_ptr<model::HostOpTimer> step_ops_;
  bool profiling_ = false;
};

// The rates of the CPU step's GEMMs (o.config at o.batch x o.seq) for o.cpu_gemm, or under auto
// for each of the three backends, with the fastest per shape chosen (model/gemm_chooser.h) and
// published for the model's calls: from `ceilings_path`'s gemm_flops_per_s where it has the
// key, the others measured now (each checked against a double reference first; a wrong result
// is an error). `source` says which.
// The CPU bf16 step's Linear GEMMs: "bf16 on oneDNN's matmul primitive (<implementation>),
// whatever --cpu_gemm".
std::string Bf16LinearsGemm();

absl::StatusOr<std::vector<StepGemmRate>> StepGemmRates(const StepOptions& o,
                                                        const std::string& ceilings_path,
                                                        std::string* source);

// Summary statistics of a series (step times).
struct SeriesStats {
  double median = 0, min = 0, max = 0, mean = 0, sum = 0;
  int n = 0;
};
SeriesStats Summarise(std::vector<double> v);

}  // namespace macro

#endif  // MACRO_GPT_SESSION_H_
