// The datasheet registry and lookup by CUDA device name.
#include "accounting/peaks.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "accounting/plausible.h"

namespace accounting {
namespace {

constexpr double T = 1e12;  // TFLOP/s, TB/s
constexpr double G = 1e9;   // GB

constexpr char kA100Url[] =
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
constexpr char kH100Url[] = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet";
constexpr char kH200Url[] = "https://www.nvidia.com/en-us/data-center/h200/";
constexpr char kB200Url[] = "https://www.nvidia.com/en-us/data-center/hgx/";

// Datasheets print tensor-core figures "with sparsity"; dense = sparse / 2. fp32 is the
// non-tensor (CUDA-core) rate. Memory bytes are decimal GB as the datasheets print them.
std::vector<DatasheetEntry> BuildRegistry() {
  std::vector<DatasheetEntry> r;
  auto a100 = [&](std::string name, std::vector<std::string> cuda, std::vector<std::string> alias,
                  double mem_gb, double bw_tbs) {
    DatasheetEntry e;
    e.name = std::move(name);
    e.cuda_names = std::move(cuda);
    e.aliases = std::move(alias);
    e.fp32 = 19.5 * T;
    e.tf32 = 156 * T;  // 312 with sparsity
    e.bf16 = 312 * T;  // 624 with sparsity
    e.fp16 = 312 * T;
    e.fp8 = std::nullopt;  // Ampere has no fp8 tensor cores
    e.memory_bytes = mem_gb * G;
    e.bandwidth_bytes_per_s = bw_tbs * T;
    e.url = kA100Url;
    r.push_back(e);
  };
  a100("NVIDIA A100 SXM4 80GB", {"NVIDIA A100-SXM4-80GB"},
       {"A100", "A100-SXM", "A100-SXM4", "A100-80GB", "A100-SXM-80GB"}, 80, 2.039);
  a100("NVIDIA A100 SXM4 40GB", {"NVIDIA A100-SXM4-40GB"}, {"A100-40GB", "A100-SXM-40GB"}, 40, 1.555);
  a100("NVIDIA A100 PCIe 80GB", {"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"},
       {"A100-PCIe", "A100-PCIe-80GB"}, 80, 1.935);
  a100("NVIDIA A100 PCIe 40GB", {"NVIDIA A100-PCIE-40GB"}, {"A100-PCIe-40GB"}, 40, 1.555);

  auto hopper = [&](std::string name, std::vector<std::string> cuda, std::vector<std::string> alias,
                    double fp32, double tf32_sparse, double bf16_sparse, double fp8_sparse, double mem_gb,
                    double bw_tbs, const char* url) {
    DatasheetEntry e;
    e.name = std::move(name);
    e.cuda_names = std::move(cuda);
    e.aliases = std::move(alias);
    e.fp32 = fp32 * T;
    e.tf32 = tf32_sparse / 2 * T;
    e.bf16 = bf16_sparse / 2 * T;
    e.fp16 = bf16_sparse / 2 * T;  // fp16 and bf16 tensor rates are equal
    e.fp8 = fp8_sparse / 2 * T;
    e.memory_bytes = mem_gb * G;
    e.bandwidth_bytes_per_s = bw_tbs * T;
    e.url = url;
    e.note = "datasheet tensor figures are with sparsity; dense = half";
    r.push_back(e);
  };
  hopper("NVIDIA H100 SXM5", {"NVIDIA H100 80GB HBM3"}, {"H100", "H100-SXM", "H100-SXM5"}, 67, 989, 1979,
         3958, 80, 3.35, kH100Url);
  hopper("NVIDIA H100 PCIe", {"NVIDIA H100 PCIe"}, {}, 51, 756, 1513, 3026, 80, 2.0, kH100Url);
  hopper("NVIDIA H100 NVL", {"NVIDIA H100 NVL"}, {}, 60, 835, 1671, 3341, 94, 3.9, kH100Url);
  hopper("NVIDIA H200 SXM", {"NVIDIA H200"}, {"H200-SXM"}, 67, 989, 1979, 3958, 141, 4.8, kH200Url);
  hopper("NVIDIA H200 NVL", {"NVIDIA H200 NVL"}, {}, 60, 835, 1671, 3341, 141, 4.8, kH200Url);

  // HGX B200 lists 8-GPU totals: FP8 72 PF, BF16/FP16 36 PF, TF32 18 PF (all with sparsity),
  // FP32 600 TF, 1.4 TB memory, 64 TB/s. Per GPU = / 8.
  DatasheetEntry b;
  b.name = "NVIDIA B200";
  b.cuda_names = {"NVIDIA B200"};
  b.aliases = {"B200"};
  b.fp32 = 75 * T;
  b.tf32 = 1125 * T;
  b.bf16 = 2250 * T;
  b.fp16 = 2250 * T;
  b.fp8 = 4500 * T;
  b.memory_bytes = 180 * G;
  b.bandwidth_bytes_per_s = 8.0 * T;
  b.url = kB200Url;
  b.note = "per GPU = HGX B200 8-GPU totals / 8; tensor figures with sparsity halved";
  r.push_back(b);
  return r;
}

// "NVIDIA A100-SXM4-80GB" -> "a100-sxm4-80gb": lower case, spaces and underscores as '-',
// without the vendor prefix.
std::string Normalize(std::string_view name) {
  std::string s = absl::AsciiStrToLower(std::string(name));
  s = absl::StrReplaceAll(s, {{" ", "-"}, {"_", "-"}});
  while (absl::StrContains(s, "--")) s = absl::StrReplaceAll(s, {{"--", "-"}});
  if (absl::StartsWith(s, "nvidia-")) s = s.substr(7);
  return s;
}

std::string KnownNames() {
  std::vector<std::string> names;
  for (const auto& e : DatasheetRegistry()) {
    for (const auto& n : e.cuda_names) names.push_back(absl::StrCat("'", n, "'"));
    for (const auto& n : e.aliases) names.push_back(n);
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::optional<double> DatasheetEntry::DenseFlops(Dtype dtype) const {
  switch (dtype) {
    case Dtype::kFp32: return fp32;
    case Dtype::kTf32: return tf32;
    case Dtype::kBf16: return bf16;
    case Dtype::kFp16: return fp16;
    case Dtype::kFp8: return fp8;
  }
  return std::nullopt;
}

const std::vector<DatasheetEntry>& DatasheetRegistry() {
  static const std::vector<DatasheetEntry>* registry = new std::vector<DatasheetEntry>(BuildRegistry());
  return *registry;
}

const std::string& HowToGiveAPeak() {
  static const std::string* text = new std::string(
      "give a peak with --peak_flops=FLOP_PER_S (and --bandwidth=BYTES_PER_S), or measure "
      "this machine's ceilings with `bazel run //micro:ceilings` and pass --ceilings=FILE");
  return *text;
}

absl::StatusOr<const DatasheetEntry*> FindDatasheetEntry(std::string_view device_name) {
  const std::string want = Normalize(device_name);
  for (const auto& e : DatasheetRegistry()) {
    for (const auto& n : e.cuda_names) {
      if (Normalize(n) == want) return &e;
    }
    for (const auto& n : e.aliases) {
      if (Normalize(n) == want) return &e;
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown device '", std::string(device_name),
                                          "': no datasheet entry (known: ", KnownNames(), "); ",
                                          HowToGiveAPeak()));
}

absl::StatusOr<Peak> DatasheetPeak(std::string_view device_name, Dtype dtype, Sparsity sparsity) {
  absl::StatusOr<const DatasheetEntry*> e = FindDatasheetEntry(device_name);
  if (!e.ok()) return e.status();
  const DatasheetEntry& entry = **e;
  std::optional<double> dense = entry.DenseFlops(dtype);
  if (!dense.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(entry.name, " has no ", DtypeName(dtype),
                                                   " tensor math on its datasheet; pick another "
                                                   "dtype or ",
                                                   HowToGiveAPeak()));
  }
  Peak p;
  p.bytes_per_s = entry.bandwidth_bytes_per_s;
  if (sparsity == Sparsity::kSparse && dtype != Dtype::kFp32) {
    p.flops_per_s = *dense * entry.sparse_factor;
    p.source = absl::StrCat("datasheet: ", entry.name, " ", DtypeName(dtype),
                            " SPARSE 2:4 (not comparable with dense MFU) (", entry.url, ")");
  } else {
    p.flops_per_s = *dense;
    p.source = absl::StrCat("datasheet: ", entry.name, " ", DtypeName(dtype), " dense (", entry.url, ")");
  }
  return p;
}

absl::StatusOr<Peak> DatasheetBandwidth(std::string_view device_name) {
  absl::StatusOr<const DatasheetEntry*> e = FindDatasheetEntry(device_name);
  if (!e.ok()) return e.status();
  Peak p;
  p.bytes_per_s = (*e)->bandwidth_bytes_per_s;
  p.source = absl::StrCat("datasheet: ", (*e)->name, " memory bandwidth (", (*e)->url, ")");
  return p;
}

absl::StatusOr<Peak> PeakFromFlags(double flops_per_s, double bytes_per_s, std::string_view flag_name) {
  if (!(flops_per_s >= 0) || !std::isfinite(flops_per_s) || !(bytes_per_s >= 0) ||
      !std::isfinite(bytes_per_s) || (flops_per_s == 0 && bytes_per_s == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(flag_name), ": peak ", flops_per_s, " FLOP/s, bandwidth ", bytes_per_s,
                     " B/s is invalid: each must be finite and >= 0, and at least one > 0"));
  }
  // A figure given must be a physical one (accounting/plausible.h); 0 is "not given".
  if (flops_per_s > 0) {
    if (absl::Status s = CheckPlausibleFlops(std::string(flag_name), flops_per_s); !s.ok()) return s;
  }
  if (bytes_per_s > 0) {
    if (absl::Status s = CheckPlausibleBandwidth(std::string(flag_name), bytes_per_s); !s.ok()) return s;
  }
  Peak p;
  p.flops_per_s = flops_per_s;
  p.bytes_per_s = bytes_per_s;
  p.source = absl::StrCat("flag: ", std::string(flag_name));
  return p;
}

}  // namespace accounting
