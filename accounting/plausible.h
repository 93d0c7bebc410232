// The physical bands a peak FLOP/s or a memory bandwidth must lie in when it comes from outside
// the program (a --ceilings file, --peak_flops, estimate's --bandwidth): a figure outside them is
// a typo or a broken measurement, and dividing by it prints an MFU of "inf%" or "0.00%" as if it
// were valid (a ceilings file with peak 1e-300 did). Refused, naming the value and the band.
//
//   FLOP/s 1e8 .. 1e16: 1e8 is below one core of any CPU this project runs on (one scalar FMA
//     unit at 1 GHz is 2e9); 1e16 is above every single device's dense figure (a B200 is about
//     4.5e15 in fp8, 9e15 with sparsity).
//   bytes/s 1e8 .. 1e14: 1e8 is below any DRAM of the last 25 years; 1e14 (100 TB/s) is above
//     every device's memory (a B200's HBM3e is 8e12) and a CPU's caches taken together.
#ifndef ACCOUNTING_PLAUSIBLE_H_
#define ACCOUNTING_PLAUSIBLE_H_

#include <string>

#include "absl/status/status.h"

namespace accounting {

inline constexpr double kMinPlausibleFlopsPerSecond = 1e8;
inline constexpr double kMaxPlausibleFlopsPerSecond = 1e16;
inline constexpr double kMinPlausibleBytesPerSecond = 1e8;
inline constexpr double kMaxPlausibleBytesPerSecond = 1e14;

// OK when flops_per_s lies in [1e8, 1e16]; else InvalidArgument "<what> = 1e-300 FLOP/s is
// outside the plausible band 1e+08 to 1e+16 FLOP/s for one device's peak".
absl::Status CheckPlausibleFlops(const std::string& what, double flops_per_s);
// The same for a memory bandwidth, [1e8, 1e14] bytes/s.
absl::Status CheckPlausibleBandwidth(const std::string& what, double bytes_per_s);

}  // namespace accounting

#endif  // ACCOUNTING_PLAUSIBLE_H_
