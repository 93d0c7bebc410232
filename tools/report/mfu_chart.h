// mfu_breakdown.svg: where a train step's time goes against the peak, as one 100% bar of
// named parts (RunData::breakdowns; the input shape is in README.md), e.g. the MFU itself,
// GEMMs below peak, non-GEMM ops, data, optimizer. Parts are drawn in the input's order.
#ifndef TOOLS_REPORT_MFU_CHART_H_
#define TOOLS_REPORT_MFU_CHART_H_

#include <string>

#include "tools/report/run_data.h"

namespace report {

// The chart of one breakdown; the bar's length is the sum of the parts (100 when they add up).
std::string DrawMfuBreakdown(const MfuBreakdown& breakdown);

}  // namespace report

#endif  // TOOLS_REPORT_MFU_CHART_H_
