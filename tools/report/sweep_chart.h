// matmul_sweep.svg: GFLOP/s of every BM_Matmul case against its size, one series per library
// or dtype (the matmul family), with the measured (or datasheet) peak of each dtype as a
// dashed line. Cubes (M = K = N) are joined by a line; other shapes (the GPT-2 GEMMs) are
// hollow markers at the cube root of M x K x N, labelled with their shape.
#ifndef TOOLS_REPORT_SWEEP_CHART_H_
#define TOOLS_REPORT_SWEEP_CHART_H_

#include <map>
#include <string>

#include "tools/report/roof.h"
#include "tools/report/run_data.h"

namespace report {

struct SweepChart {
  std::string svg;  // empty when the run has no matmul case with FLOP/s
  int points = 0;
};

SweepChart DrawMatmulSweep(const RunData& data, const RoofChoice& roofs,
                           const std::map<std::string, std::string>& colours);

}  // namespace report

#endif  // TOOLS_REPORT_SWEEP_CHART_H_
