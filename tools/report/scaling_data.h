// The scaling map's data (issue 46): the points of //tools:sweep's files (cases named
// BM_Sweep/<preset>/<device>/<dtype>/B:<b>/T:<t>/recompute:<level>), grouped into series, one per
// machine key, preset, device, dtype and recompute level, with each series' MFU curve, its knee
// and its trend breaks (accounting/mfu_knee.h), and the machines with their legend lines.
//
// - A point needs the counters batch, seq and tokens_per_step; without them it is left off the
//   map with a problem line. Any other counter may be missing: a chart skips the points without
//   its values, and a problem line per counter names them.
// - The MFU curve of a series has one point per B x T: where several (B, T) share one B x T, the
//   one with the best MFU (the others are drawn off the line). The knee and the trend breaks are
//   the curve's; a point's spread is its mfu_max - mfu_min (unknown without them: not judged).
// - Colours: one per machine key when the input has several machines (the series of a machine
//   differ by marker shape and dash), else one per series.
#ifndef TOOLS_REPORT_SCALING_DATA_H_
#define TOOLS_REPORT_SCALING_DATA_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accounting/mfu_knee.h"
#include "tools/report/run_data.h"

namespace report {

inline constexpr char kSweepPrefix[] = "BM_Sweep/";

struct ScalingPoint {
  std::string name;         // the case name without run suffixes
  std::string machine_key;  // Case::machine_key
  std::string preset, device, dtype, recompute;
  double batch = 0, seq = 0, tokens = 0;  // tokens = tokens_per_step (B x T)
  int repetitions = 0;
  bool disturbed = false;
  std::optional<double> mfu, mfu_spread;  // fractions; spread = mfu_max - mfu_min
  std::optional<double> ms;               // measured: ms_per_step, else the median real time
  std::optional<double> predicted_ms, attention_share, tokens_per_second, params;
  std::optional<double> mem_measured, mem_predicted, peak_flops;
  size_t series = 0;  // index into ScalingMap::series
};

struct ScalingSeries {
  std::string machine_key, preset, device, dtype, recompute;
  size_t machine = 0;  // index into ScalingMap::machines
  int style = 0;       // marker shape and dash: one per (preset, device, dtype, recompute)
  std::string colour;
  std::vector<size_t> points;  // into ScalingMap::points, by tokens then batch
  std::vector<size_t> curve;   // the MFU curve, by tokens: per B x T the point with the best MFU
  std::optional<size_t> knee;  // the knee's point
  std::optional<size_t> best;  // the point of the best MFU
  std::vector<std::pair<size_t, accounting::TrendBreak>> breaks;  // point, why
  // "gpt2 fp32" (+ " cuda" off the CPU, + " recompute:<level>" unless none).
  std::string Label() const;
};

struct ScalingMachine {
  std::string key, cpu, isa, gpu, machine;  // InputFile's
  std::string colour;
  std::vector<std::pair<std::string, double>> peaks;  // dtype -> the peak FLOP/s its MFU divides by
  std::string Name() const;    // the CPU (and GPU), else the machine line, else "machine <key>"
  std::string Legend() const;  // "AMD EPYC 7B13, AVX2, peak 1.00 TFLOP/s fp32 (key 1a2b3c4d)"
};

struct ScalingMap {
  std::vector<ScalingPoint> points;
  std::vector<ScalingSeries> series;
  std::vector<ScalingMachine> machines;
  std::vector<std::string> problems;     // points left off, counters missing, curves not judged
  std::vector<std::string> knee_lines;   // one per series with a knee (KneeLine)
  std::vector<std::string> break_lines;  // one per trend break
  bool empty() const { return points.empty(); }
};

// The scaling map of the sweep cases of `data` (empty when none).
ScalingMap CollectScaling(const RunData& data);

// "knee: gpt2 fp32 on AMD EPYC 7B13 (key 1a2b3c4d): B·T = 256 (B:4 T:64), MFU 55.0% of best 60.1%
// (90.0% of it)".
std::string KneeLine(const ScalingMap& map, const ScalingSeries& s);

}  // namespace report

#endif  // TOOLS_REPORT_SCALING_DATA_H_
