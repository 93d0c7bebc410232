// The memory roofs of the roofline: which roof each case is held to, and which roofs are drawn.
//
// The memory side of the roofline is one roof per kind of traffic and per cache level
// (accounting/memory_roofs.h), not one STREAM copy slope: an op that rewrites what it just read
// (AdamW) moves no write-allocate bytes, so it runs above the copy slope honestly and is held
// to the in_place roof instead; a case whose data fits a cache is held to that level's roof.
//
// A case declares its traffic through counters, per iteration (one call of the op):
//   traffic_read_bytes, traffic_write_bytes  counted bytes (each input read once, each output
//                                            written once)
//   traffic_in_place                         1: every written line was just read (AdamW)
//   traffic_streaming_stores                 1: non-temporal stores
//   working_set_bytes                        bytes its data spans before reuse; absent or 0:
//                                            unknown, taken as DRAM
//   roof_bytes/s                             the roof it held itself to when it ran (its kind)
// A case with none of the traffic_* counters (matmul, gpt_step, older files) has no memory roof
// of its own and stays on its dtype's single slope (roof.h), as before.
//
// A declaring case's roof, the first that applies:
//   1. the --ceilings file's memory roofs (Ceilings::memory), when the file is this machine's:
//      accounting::RoofForTraffic (its kind at the smallest cache level holding its working
//      set, else at DRAM);
//   2. its own roof_bytes/s: its kind (accounting::KindOf), level DRAM (the counter does not
//      name a level; the elementwise CPU cases rotate through >= 4x the last-level cache);
//   3. none: the single slope, with a problem line.
// The roofs drawn: with the file, one per DRAM kind it has and one per cache level (the level's
// fastest kind); without, one per distinct kind and bandwidth among the cases' roof_bytes/s.
// A file whose STREAM arrays were cache-sized (bandwidth_cache_resident) has no DRAM roofs:
// its per-kind "DRAM" figures were measured on the same arrays, so only its cache levels count.
#ifndef TOOLS_REPORT_MEMORY_ROOF_H_
#define TOOLS_REPORT_MEMORY_ROOF_H_

#include <optional>
#include <string>
#include <vector>

#include "accounting/ceilings.h"
#include "accounting/memory_roofs.h"
#include "tools/report/run_data.h"

namespace report {

// One memory roof as drawn: a slope of `bytes_per_s` on the roofline.
struct MemorySlope {
  accounting::TrafficKind kind = accounting::TrafficKind::kCopy;
  std::string level;          // "DRAM", or a cache level's name ("L1", ...)
  double bytes_per_s = 0;     // counted bytes per second
  double capacity_bytes = 0;  // a cache level's capacity; 0 for DRAM
  int level_index = -1;       // the cache level's index, smallest first; -1 for DRAM
  // "in_place DRAM 38.2 GB/s"; a cache level: "L2 (read) 210.0 GB/s".
  std::string Label() const;
};

struct MemoryRoofChoice {
  accounting::MemoryRoofs file;     // the --ceilings file's roofs when used; empty otherwise
  std::string file_path;            // that file; "" when none is used
  std::vector<MemorySlope> slopes;  // DRAM kinds (in kAllTrafficKinds order), then cache levels
  // One line for the chart's subtitle: roofs per traffic kind, what a kind is, whence; "" when
  // no roof is drawn.
  std::string summary;
  std::vector<std::string> problems;  // e.g. a kind held to several roofs
};

// The traffic the case declares (counters above); nullopt when it has none of the traffic_*
// counters or declares no bytes.
std::optional<accounting::OpTraffic> TrafficOf(const Case& c);

// `file`: the --ceilings file when it is this machine's (nullptr: none usable), read from
// `path`. The cases' counters give the roofs when the file has none.
MemoryRoofChoice ChooseMemoryRoofs(const RunData& data, const accounting::Ceilings* file,
                                   const std::string& path);

// The roof `c` is held to (rules 1 and 2 above); nullopt: no traffic counters, or no figure
// for its kind (rule 3).
std::optional<accounting::HeldRoof> MemoryRoofFor(const MemoryRoofChoice& choice, const Case& c);

}  // namespace report

#endif  // TOOLS_REPORT_MEMORY_ROOF_H_
