// Measured ceilings: a small JSON file of peak FLOP/s per dtype and memory bandwidth, written by
// //micro:ceilings and read by MFU and the roofline instead of datasheet figures.
//
//   {"machine": "...", "peak_flops": {"fp32": 1.9e11, "bf16": ...},
//    "bandwidth_bytes_per_s": 2.8e10, "method": "...", "date": "2024-01-01T00:00:00Z",
//    "gemm_flops_per_s": {"onednn/NT/M:256/N:2304/K:768/bias": 2.1e11, ...}}
// gemm_flops_per_s (optional): a GEMM library's rate at one of the CPU train step's shapes, keyed
// as model/step_gemms.h names them; gpt_step's MFU loss breakdown reads them.
// stream_array_bytes (optional): bytes per array of the CPU STREAM copy behind the bandwidth.
// triad_bytes_per_s (optional): STREAM triad on the same arrays, as STREAM counts it (12 bytes an
// element); gpt_step's AdamW line and step floor read it instead of measuring a triad at start-up.
// bandwidth_cache_resident (optional, false when absent): the STREAM arrays were smaller than
// STREAM's rule asks (4x the last-level cache; `ceilings --sizes=quick` uses 4 MiB), so the
// figure is partly a cache bandwidth, not the memory's: printed as such, never a memory bound
// (MeasuredPeak carries the label; gpt_decode ignores such a figure). A file without the field
// is judged by its stream_array_bytes against this CPU's cache where it has one, else taken as
// a DRAM figure, as files written before the field were.
// memory_roofs_bytes_per_s (optional): the DRAM roof per kind of traffic (accounting/memory_roofs.h:
// "read", "write_nt", "copy", "triad", "in_place"), in counted bytes/s, on the STREAM arrays;
// memory_roofs_spread: per kind, (best - median) / best over its interleaved trials.
// cache_levels (optional): [{"level": "L1", "capacity_bytes": 32768, "bytes_per_s": {"read": ...}}, ...],
// smallest first, from the working-set sweep.
//
// Every peak and the bandwidth, when not 0 (no figure), must lie in its physical band
// (accounting/plausible.h), and every GEMM rate at most kGemmOverPeakTolerance (25%) above the
// file's own peak for its dtype (bf16 when its key holds "/bf16/", else fp32) where the file has one;
// the file may be at most harness::kMaxJsonFileBytes.
//
// Written to a temporary name in the same folder and renamed, so a reader never sees half a file.
#ifndef ACCOUNTING_CEILINGS_H_
#define ACCOUNTING_CEILINGS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/memory_roofs.h"
#include "accounting/peaks.h"

namespace accounting {

// How far a GEMM rate may read above its own file's peak. Both are measurements of a machine
// that may be busy, taken seconds to minutes apart: under other jobs' load //micro:ceilings' FMA
// probe read more than 3% below a GEMM measured a moment later (ceilings_test failed so while a
// CI run and two builds shared 2 cores). 25% still refuses what the rule is for: a hand-edited
// rate (5e15 against a 1e11 peak was printed as 4970407% of peak), or another machine's figures
// (an AVX-512 machine's GEMMs beside an AVX2 peak: 2x).
inline constexpr double kGemmOverPeakTolerance = 0.25;

struct Ceilings {
  std::string machine;                       // CPU or GPU name
  std::map<std::string, double> peak_flops;  // key: dtype name ("fp32", "bf16", ...)
  double bandwidth_bytes_per_s = 0;
  int64_t stream_array_bytes = 0;         // 0: not recorded (a GPU copy, or an older file)
  double triad_bytes_per_s = 0;           // 0: not recorded
  bool bandwidth_cache_resident = false;  // see above
  std::string method;                              // how it was measured
  std::string date;                                // ISO 8601
  std::map<std::string, double> gemm_flops_per_s;  // key: model::StepGemm::Key
  MemoryRoofs memory;                              // empty: not measured (an older file)
};

// True when a STREAM figure measured on arrays of bytes_per_array bytes is (partly) a cache
// bandwidth: the arrays are under STREAM's 4x the last-level cache (llc_bytes; <= 0 unknown: under
// 64 MiB, the smallest array measure/stream.h ever picks).
bool StreamFigureIsCacheResident(int64_t bytes_per_array, int64_t llc_bytes);

// Errors: a key that is not a dtype name, a negative or non-finite value, an unwritable path.
absl::Status WriteCeilings(const std::string& path, const Ceilings& ceilings);
// Errors name the path and what is wrong (missing file, a file over the size limit, bad JSON with
// its line and column, wrong types, bad dtype key, a figure outside its physical band).
absl::StatusOr<Ceilings> ReadCeilings(const std::string& path);
// Peak for `dtype` with source "measured: <path> (<machine>, <method>, <date>)".
// Error when the file has no figure for that dtype (names the ones it has).
absl::StatusOr<Peak> MeasuredPeak(const Ceilings& ceilings, Dtype dtype, const std::string& path_for_source);

}  // namespace accounting

#endif  // ACCOUNTING_CEILINGS_H_
