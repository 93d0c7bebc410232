// A run's start-up figures against this machine's record (harness/peak_record.h): the best FMA
// (or bf16) probe and the STREAM figures measured at start-up, each compared with the best figure
// quiet runs of the same machine key measured before. A figure more than 15% below its record
// makes the run DISTURBED (accounting/disturbed.h, through PeakProbes::records, which gpt_step,
// gpt_decode and ddp_step pass to JudgeDisturbance); a run whose probes are quiet raises the
// record where it measured more.
//
// Called by ProbeAgain (rank_peak.h) after the timed work, so only for a peak measured at start-up:
// a figure from --peak_flops, --ceilings or a datasheet is not a probe and has no record.
#ifndef MACRO_PEAK_RECORD_CHECK_H_
#define MACRO_PEAK_RECORD_CHECK_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accounting/disturbed.h"
#include "accounting/dtype.h"
#include "measure/stream.h"

namespace macro {

// One start-up figure, as the record names it.
struct StartupFigure {
  std::string name;   // the record's name: "fp32_fma/threads=2", "stream_triad/threads=2/array_mib=128"
  std::string what;   // for people: "FMA peak probe (the best of start-up and after)"
  std::string keyed;  // what else it depends on: "2 threads", "2 threads, 128 MiB arrays"
  double value = 0;   // per second
  std::string unit;   // "FLOP/s", "B/s"
};

// The figures of a run whose peak was measured at start-up: its best probe in the run's dtype
// (fp32: the FMA loop, bf16: the bf16 loops), unscaled, on `threads` threads; and the STREAM copy
// and triad of `stream` (what this process measured at start-up, micro::LastMeasuredStream) when
// there is one.
std::vector<StartupFigure> StartupFigures(accounting::Dtype dtype, double best_probe, int threads,
                                          const std::optional<micro::StreamResult>& stream);

// The checks of `figures` against `recorded` (the record's figures by name; a figure without one
// gets record 0, which is not judged).
std::vector<accounting::RecordCheck> RecordChecks(const std::vector<StartupFigure>& figures,
                                                  const std::map<std::string, double>& recorded);

// Reads the record (harness/peak_record.h) and fills probes->records and ->record_file. Then, when `may_raise` and
// the probes are quiet (neither 10% apart nor more than 15% below the record), raises the record
// to this run's figures where they are higher and says so in one line on stderr. A record that is
// off (MLBENCH_PEAK_RECORD=off) is silent; one that cannot be read, is not a peak record or cannot
// be written gives one WARNING line on stderr and the run goes on without it. Never fails.
void ConsultPeakRecord(const std::vector<StartupFigure>& figures, bool may_raise,
                       accounting::PeakProbes* probes);

}  // namespace macro

#endif  // MACRO_PEAK_RECORD_CHECK_H_
