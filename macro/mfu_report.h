// The end of gpt_step's summary: where the MFU went (accounting/mfu_breakdown.h: achieved MFU,
// GEMM efficiency, non-matmul ops, optimizer and data; they add up to 100%), the GEMM library
// and its rates at the step's shapes, and the MFU rating band with the first thing to check
// (accounting/mfu_rating.h).
#ifndef MACRO_MFU_REPORT_H_
#define MACRO_MFU_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/mfu_breakdown.h"
#include "macro/gpt_session.h"

namespace macro {

// The breakdown of the timed steps (mean step time, mean optimizer + data time) with the
// session's GEMM rates. Error on CUDA (no per-shape rates there yet) or without steps.
absl::StatusOr<accounting::MfuBreakdown> StepMfuBreakdown(const GptSession& s,
                                                          const std::vector<StepTimes>& steps);

// The summary's closing lines: GEMM library and rates, the breakdown (when it could be made),
// the rating band of `mfu` and its advice.
std::vector<std::string> MfuReportLines(const GptSession& s, const std::vector<StepTimes>& steps, double mfu);

}  // namespace macro

#endif  // MACRO_MFU_REPORT_H_
