// The scaling map's five charts (issue 46), each an SVG file, from scaling_data.h's map:
//
//   scaling_mfu.svg        MFU (%) against tokens per step B x T (log 2): one line per series
//                          through its MFU curve, every point a marker; the knee ringed in ink and
//                          labelled "knee B·T=N"; a trend break ringed in red with its reason.
//   scaling_time.svg       two panels against T (log 2), one line per series and batch: the step
//                          time (ms, log) above, the attention term's share of the FLOPs (%) below.
//   scaling_tokens.svg     tokens/s (log) against model size (parameters, log): every point; a
//                          line per machine, device, dtype and recompute level through each
//                          preset's best.
//   scaling_predicted.svg  predicted against measured step time (ms, log-log, one domain for
//                          both): the y = x line, the +-25% band shaded; a point outside it ringed.
//   scaling_memory.svg     peak memory (bytes, log) against B x T (log 2): measured (VmHWM)
//                          filled, predicted hollow, the two of a point joined.
// Colours: per machine key with several machines, the series told apart by marker shape (circle,
// square, diamond, triangle) and dash; per series with one machine. The legend names each
// machine's CPU, ISA and peak. Each marker has a tooltip (<title>) with the point's values and
// carries data-case, data-machine, data-x and data-y; each chart declares its plot rectangle and
// axis domains on its root (chart_frame.h; scaling_time.svg: the upper panel there, the lower one
// on its <g class="panel-lower">).
#ifndef TOOLS_REPORT_SCALING_CHARTS_H_
#define TOOLS_REPORT_SCALING_CHARTS_H_

#include <string>
#include <utility>
#include <vector>

#include "tools/report/scaling_data.h"

namespace report {

inline constexpr const char* kScalingFiles[] = {"scaling_mfu.svg", "scaling_time.svg", "scaling_tokens.svg",
                                                "scaling_predicted.svg", "scaling_memory.svg"};

// The predicted-against-measured band: a prediction within measured x (1 +- this) is in it.
inline constexpr double kPredictionBand = 0.25;

struct ScalingCharts {
  // (file name, svg) in kScalingFiles' order; a chart none of whose points has its values is
  // left out, and `absent` says why.
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> absent;
};

ScalingCharts DrawScalingCharts(const ScalingMap& map);

}  // namespace report

#endif  // TOOLS_REPORT_SCALING_CHARTS_H_
