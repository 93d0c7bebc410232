// Peak FLOP/s and memory bandwidth of a device: the denominators of MFU and the roofline.
//
// A registry of datasheet figures keyed by device and dtype (dense tensor-core math; fp32 is the
// non-tensor CUDA-core rate). NVIDIA datasheets quote sparse ("with sparsity") figures, twice the
// dense ones: the registry stores them flagged and never returns them unless asked for.
// Lookup takes the name a CUDA device reports (cudaDeviceProp::name), e.g. "NVIDIA H100 80GB
// HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", or a short alias ("A100", "H100-PCIe").
// An unknown device or a dtype the device lacks is an error that says how to give a peak
// instead: never a silent fallback. Every Peak carries its source so outputs can print it.
#ifndef ACCOUNTING_PEAKS_H_
#define ACCOUNTING_PEAKS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/memory_roofs.h"

namespace accounting {

struct Peak {
  double flops_per_s = 0;  // 0: not known (e.g. a bandwidth-only peak)
  double bytes_per_s = 0;  // memory bandwidth; 0: not known
  // bytes_per_s is a STREAM figure on cache-sized arrays (accounting/ceilings.h): not a memory
  // bound.
  bool bandwidth_cache_resident = false;
  // The roofs per kind of traffic and cache level (accounting/memory_roofs.h), where measured;
  // bytes_per_s is the copy roof among them.
  MemoryRoofs memory;
  // Where the figures come from, e.g. "datasheet: NVIDIA H100 SXM5 bf16 dense (URL)",
  // "measured: /path/ceilings.json", "flag: --peak_flops".
  std::string source;
};

enum class Sparsity { kDense, kSparse };  // kSparse: 2:4 structured sparsity figures

struct DatasheetEntry {
  std::string name;                     // "NVIDIA H100 SXM5"
  std::vector<std::string> cuda_names;  // exact cudaDeviceProp::name strings
  std::vector<std::string> aliases;     // short names for flags: "H100", "H100-SXM"
  // Dense peak FLOP/s by dtype; nullopt: the device has no such math (A100 fp8).
  std::optional<double> fp32, tf32, bf16, fp16, fp8;
  double sparse_factor = 2;          // sparse figure = dense * this (flagged, never default)
  double memory_bytes = 0;           // HBM capacity
  double bandwidth_bytes_per_s = 0;  // HBM bandwidth
  std::string url;                   // datasheet
  std::string note;                  // rounding or per-GPU derivation

  std::optional<double> DenseFlops(Dtype dtype) const;
};

// The whole registry: A100 SXM4 40/80GB, A100 PCIe 40/80GB, H100 SXM5, H100 PCIe, H100 NVL,
// H200 (SXM), H200 NVL, B200.
const std::vector<DatasheetEntry>& DatasheetRegistry();

// By CUDA name or alias, case-insensitive; error as described above.
absl::StatusOr<const DatasheetEntry*> FindDatasheetEntry(std::string_view device_name);

// Peak FLOP/s for `dtype` and the memory bandwidth, with source
// "datasheet: <name> <dtype> dense (<url>)". Sparse only when asked (source says "sparse").
absl::StatusOr<Peak> DatasheetPeak(std::string_view device_name, Dtype dtype,
                                   Sparsity sparsity = Sparsity::kDense);

// Bandwidth only (for decode bounds): flops_per_s = 0.
absl::StatusOr<Peak> DatasheetBandwidth(std::string_view device_name);

// A peak given on the command line: source "flag: <flag_name>". Errors if neither is > 0, or
// one given (> 0) lies outside its physical band (accounting/plausible.h).
absl::StatusOr<Peak> PeakFromFlags(double flops_per_s, double bytes_per_s, std::string_view flag_name);

// The text appended to "unknown device" errors: how to give a peak instead.
const std::string& HowToGiveAPeak();

}  // namespace accounting

#endif  // ACCOUNTING_PEAKS_H_
