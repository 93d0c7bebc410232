// Measured ceilings: a small JSON file of peak FLOP/s per dtype and memory bandwidth, written by
// //micro:ceilings and read by MFU and the roofline instead of datasheet figures.
//
//   {"machine": "...", "peak_flops": {"fp32": 1.9e11, "bf16": ...},
//    "bandwidth_bytes_per_s": 2.8e10, "method": "...", "date": "2024-01-01T00:00:00Z",
//    "gemm_flops_per_s": {"onednn/NT/M:256/N:2304/K:768/bias": 2.1e11, ...}}
// gemm_flops_per_s (optional): a GEMM library's rate at one of the CPU train step's shapes, keyed
// as model/step_gemms.h names them; gpt_step's MFU loss breakdown reads them.
//
// Written to a temporary name in the same folder and renamed, so a reader never sees half a file.
#ifndef ACCOUNTING_CEILINGS_H_
#define ACCOUNTING_CEILINGS_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/peaks.h"

namespace accounting {

struct Ceilings {
  std::string machine;                       // CPU or GPU name
  std::map<std::string, double> peak_flops;  // key: dtype name ("fp32", "bf16", ...)
  double bandwidth_bytes_per_s = 0;
  std::string method;                              // how it was measured
  std::string date;                                // ISO 8601
  std::map<std::string, double> gemm_flops_per_s;  // key: model::StepGemm::Key
};

// Errors: a key that is not a dtype name, a negative or non-finite value, an unwritable path.
absl::Status WriteCeilings(const std::string& path, const Ceilings& ceilings);
// Errors name the path and what is wrong (missing file, bad JSON, wrong types, bad dtype key).
absl::StatusOr<Ceilings> ReadCeilings(const std::string& path);
// Peak for `dtype` with source "measured: <path> (<machine>, <method>, <date>)".
// Error when the file has no figure for that dtype (names the ones it has).
absl::StatusOr<Peak> MeasuredPeak(const Ceilings& ceilings, Dtype dtype, const std::string& path_for_source);

}  // namespace accounting

#endif  // ACCOUNTING_CEILINGS_H_
