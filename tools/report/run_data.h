// What the report draws, read from Google Benchmark JSON files (input_loader.h): the machine
// context, one Case per benchmark (repetitions folded into medians), the per-step times of
// gpt_step runs, MFU loss breakdowns, and the problems found on the way (shown on the page).
#ifndef TOOLS_REPORT_RUN_DATA_H_
#define TOOLS_REPORT_RUN_DATA_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace report {

struct Case {
  std::string name;               // Google Benchmark's run_name (e.g. BM_Matmul/cpu/fp32/M:256/...)
  std::string file;               // the input it came from
  // The machine key of its file (InputFile::machine_key) for a case of a sweep file, whose cases
  // are kept apart per machine (the same point run on two machines is two cases); "" otherwise.
  std::string machine_key;
  std::string family;             // op family: family.h
  int repetitions = 0;            // entries folded into this case
  std::optional<double> seconds;  // median real time per iteration
  // Median of each counter over the repetitions; NaN where an input said NaN (or null).
  std::map<std::string, double> counters;
  std::string label;  // the last repetition's label ("peak: <source>" for micro cases)
  std::string error;  // error_message of an errored repetition; empty when none

  // The case was skipped as not applicable here (harness/skip.h: an error message starting
  // "skipped: ", e.g. a CUDA case without a device), not failed.
  bool Skipped() const;

  // The counter when present and finite.
  std::optional<double> Counter(const std::string& key) const;
  // FLOP/s: "FLOP/s" (micro) or "flops_per_second" (gpt_step).
  std::optional<double> FlopsPerSecond() const;
  std::optional<double> BytesPerSecond() const;  // "bytes/s" or "bytes_per_second"
  std::optional<double> Intensity() const;       // "intensity", else FLOP/s / bytes/s
  std::optional<double> PeakFlops() const;       // "peak_FLOP/s" or "peak_flops"
  std::optional<double> PeakBytes() const;       // "peak_bytes/s"
  std::optional<double> PctOfPeak() const;       // "pct_of_peak", else 100 x mfu
  std::optional<double> PctOfRoofline() const;   // "pct_of_roofline"
  // 1 verified, 0 failed its check; nullopt when the case has no "verified" counter.
  std::optional<double> Verified() const;
  // The peak's source from the label "peak: <source>" (micro) or "...; peak: <source>" (gpt_step).
  std::string PeakSource() const;
};

// gpt_step's per-step times of one repetition ("step_times_s" in its JSON entry).
struct StepSeries {
  std::string case_name;
  std::vector<double> warmup_s;  // warm-up steps, before the timed ones
  std::vector<double> timed_s;
};

// An MFU loss breakdown: named parts of the step time in percent, adding up to 100 (the first
// is normally the MFU itself). Shape: README.md of this folder.
struct MfuBreakdown {
  std::string case_name;  // empty when it came from a file's context
  std::string file;
  std::vector<std::pair<std::string, double>> parts;  // in the order the input gave them
};

// One input file and its machine, as its own context says (RunData::context merges all files').
struct InputFile {
  std::string path;
  bool sweep = false;       // the context has "mlbench_sweep": //tools:sweep's file
  // Of a sweep file: the context's "mlbench_machine_key", else the key harness/machine_key.h
  // derives from "mlbench_run_context", else the path (with a problem saying so). "" otherwise.
  std::string machine_key;
  std::string machine;      // "mlbench_machine", else the derived machine's description
  std::string cpu;          // the run context's cpu.model_name ("" when absent)
  std::string isa;          // its cpu.isa_level
  std::string gpu;          // its gpu.name ("none" on a CPU run)
};

struct RunData {
  std::vector<std::string> files;
  std::vector<InputFile> inputs;  // one per file, in the order of `files`
  // The machine context: Google Benchmark's and the binaries' custom keys, flattened to text,
  // in the order first seen; a key whose value differs between files gets "; " + other values.
  std::vector<std::pair<std::string, std::string>> context;
  std::vector<Case> cases;
  std::vector<StepSeries> steps;
  std::vector<MfuBreakdown> breakdowns;
  // What is missing or wrong but does not stop the page (e.g. "case X has no bytes counter").
  std::vector<std::string> problems;

  // The context value for `key`, or "" when absent.
  std::string ContextValue(const std::string& key) const;
};

}  // namespace report

#endif  // TOOLS_REPORT_RUN_DATA_H_
