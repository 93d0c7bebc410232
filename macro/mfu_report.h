// The end of gpt_step's summary: the GEMM library and its rates at the step's shapes, AdamW's
// bytes/s against STREAM triad, the step's floor and the step time as a multiple of it
// (accounting/step_floor.h), where the MFU went (accounting/mfu_breakdown.h: achieved MFU, GEMM
// efficiency, GEMMs slower in the step than alone, non-matmul ops, optimizer and data; they add
// up to 100%), and the MFU rating (accounting/mfu_rating.h): on a GPU the band for LLM training on
// GPUs with the first thing to check, on a CPU what its figure means there (against the peak
// measured on its cores, read against the floor) and no band.
#ifndef MACRO_MFU_REPORT_H_
#define MACRO_MFU_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/mfu_breakdown.h"
#include "accounting/step_floor.h"
#include "accounting/step_prediction.h"
#include "macro/gpt_session.h"

namespace macro {

// The breakdown of the timed steps (mean step time, mean optimizer + data time) with the
// session's GEMM rates. Error on CUDA (no per-shape rates there yet) or without steps.
absl::StatusOr<accounting::MfuBreakdown> StepMfuBreakdown(const GptSession& s,
                                                          const std::vector<StepTimes>& steps);

// The step's floor over the timed steps (CPU: needs the GEMM rates and the STREAM triad).
absl::StatusOr<accounting::StepFloor> StepFloorOf(const GptSession& s, const std::vector<StepTimes>& steps);
// The step's predicted time (accounting/step_prediction.h) from the session's GEMM rates, STREAM
// triad and AdamW probe (CPU; error on CUDA, which has none of them yet). Needs no timed step.
absl::StatusOr<accounting::StepPrediction> StepPredictionOf(const GptSession& s);
// The attention term's FLOPs of one step (the model's count, MFU's convention).
double AttentionFlopsPerStep(const GptSession& s);
// AdamW's achieved bytes per second over the timed steps (the optimizer phase's mean time).
absl::StatusOr<double> AdamWBytesPerSecondOf(const GptSession& s, const std::vector<StepTimes>& steps);

// The summary's closing lines: GEMM library and rates, the breakdown (when it could be made),
// and the MFU rating of `mfu` (a GPU's band and its advice; a CPU's reading against its floor).
std::vector<std::string> MfuReportLines(const GptSession& s, const std::vector<StepTimes>& steps, double mfu);

}  // namespace macro

#endif  // MACRO_MFU_REPORT_H_
