// Reads the Google Benchmark JSON files the project's binaries write (//micro:matmul,
// //micro:elementwise, //micro:ceilings, //macro:gpt_step with --benchmark_out=FILE, and the
// merged file of //tools:bench) into RunData.
//
// - Entries of one case (Google Benchmark's run_name; bench's rounds; the same case in several
//   files) fold into one Case: the median of real_time and of each counter. A sweep file's
//   (//tools:sweep; context "mlbench_sweep") cases are folded per machine key instead
//   (RunData::inputs), so the same point from two machines stays two cases. Aggregate entries
//   (_mean, _median, ...) are used only when a case has no per-repetition entries.
// - Counters are the numeric keys of an entry that are not Google Benchmark's own fields nor
//   tools/bench's mlbench_* ones. Google Benchmark writes a NaN counter as a bare NaN (and
//   infinities as Infinity), which is not JSON: those tokens are read as NaN / infinity.
// - gpt_step's per-step times: "step_times_s": {"warmup": [s, ...], "timed": [s, ...]}.
// - MFU loss breakdown (README.md): an entry's "mfu_breakdown" object, counters named
//   "mfu_breakdown/<part>", or a context key "mfu_breakdown" holding the object as JSON text.
//
// Errors (the file cannot be used at all) name the file and what is wrong: unreadable, not
// JSON (with the byte), not Google Benchmark's shape. Anything less (a case without counters or
// bytes, a NaN counter, a breakdown that does not add up to 100) becomes a line in
// RunData::problems, and the page shows it.
#ifndef TOOLS_REPORT_INPUT_LOADER_H_
#define TOOLS_REPORT_INPUT_LOADER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/json_text.h"
#include "tools/report/run_data.h"

namespace report {

using harness::QuoteNonFiniteTokens;  // harness/json_text.h

struct Entry;  // one benchmark entry as read, before folding

class RunLoader {
 public:
  RunLoader();
  ~RunLoader();
  // Adds one file's content (`path` names it in messages).
  absl::Status AddText(const std::string& text, const std::string& path);
  // Reads `path` and adds it.
  absl::Status AddFile(const std::string& path);
  // Folds the entries added so far into cases and records what is missing. Call once.
  RunData Finish();

 private:
  RunData data_;
  std::unique_ptr<std::vector<Entry>> entries_;
};

// Reads every file (at least one), then Finish.
absl::StatusOr<RunData> LoadRuns(const std::vector<std::string>& paths);

}  // namespace report

#endif  // TOOLS_REPORT_INPUT_LOADER_H_
