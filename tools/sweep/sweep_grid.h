// //tools:sweep's grid: the axes as given on the command line (--preset=gpt2,llama-124m
// --batch=1,2,4,8 --seq=64,256 --dtype=fp32,bf16 --recompute=none,block) and the points they
// span, in a fixed order, and the order the runs take: every point once per repetition, the
// repetitions one after another (repetition 1 of every point, then repetition 2 of every point,
// ...), so a slow minute of a shared machine hits one repetition of several points, not every
// repetition of one.
#ifndef TOOLS_SWEEP_SWEEP_GRID_H_
#define TOOLS_SWEEP_SWEEP_GRID_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sweep {

struct SweepAxes {
  std::vector<std::string> presets;
  std::vector<int> batches;
  std::vector<int> seqs;
  std::vector<std::string> dtypes;      // fp32, bf16
  std::vector<std::string> recomputes;  // gpt_step's levels (none, gelu, swiglu, attention, block)
};

struct SweepPoint {
  std::string preset, dtype, recompute;
  int batch = 0, seq = 0;
  int64_t tokens() const { return static_cast<int64_t>(batch) * seq; }
  // "BM_Sweep/gpt2/cpu/fp32/B:4/T:64/recompute:none": the case name in the sweep's JSON.
  std::string Name(const std::string& device) const;
  // "gpt2 fp32 B=4 T=64" (and " recompute=block" when not none), for progress lines.
  std::string Short() const;
};

// "1,2,4,8": positive integers, at most `max_value`, no repeats, at least one. Errors name the
// flag and the value ("--batch=2,x: 'x' is not a positive integer").
absl::StatusOr<std::vector<int>> ParseIntList(const std::string& flag, const std::string& text, int max_value);
// "gpt2,llama-124m": non-empty names, no repeats; when `allowed` is not empty, each one of them.
absl::StatusOr<std::vector<std::string>> ParseNameList(const std::string& flag, const std::string& text,
                                                       const std::vector<std::string>& allowed);

// Every combination, preset-major, then dtype, recompute, seq, batch (the batch varies fastest).
std::vector<SweepPoint> GridPoints(const SweepAxes& axes);

struct SweepRun {
  int point = 0;       // index into the points
  int repetition = 0;  // from 0
};
// Repetition-major: all points of repetition 0, then of repetition 1, ...
std::vector<SweepRun> RunOrder(int points, int repetitions);

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_GRID_H_
