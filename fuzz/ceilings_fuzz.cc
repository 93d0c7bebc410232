// Fuzzes the measured-ceilings reader (accounting/ceilings.h): input = the file's bytes.
// Properties: a file that reads is valid (finite, non-negative figures, dtype-named peaks);
// every error names the file; the figures survive WriteCeilings + ReadCeilings unchanged;
// MeasuredPeak gives a positive peak or an error for each dtype.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "accounting/ceilings.h"
#include "accounting/dtype.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::MemFile file(std::string(reinterpret_cast<const char*>(data), size));
  auto read = accounting::ReadCeilings(file.path());
  if (!read.ok()) {
    FUZZ_CHECK(absl::StrContains(read.status().message(), file.path()));
    return 0;
  }
  const accounting::Ceilings& c = *read;
  FUZZ_CHECK(std::isfinite(c.bandwidth_bytes_per_s) && c.bandwidth_bytes_per_s >= 0);
  for (const auto& [key, value] : c.peak_flops) {
    FUZZ_CHECK(accounting::ParseDtype(key).ok());
    FUZZ_CHECK(std::isfinite(value) && value >= 0);
  }
  for (const auto& [key, value] : c.gemm_flops_per_s) FUZZ_CHECK(std::isfinite(value) && value >= 0);

  for (accounting::Dtype d : {accounting::Dtype::kFp32, accounting::Dtype::kTf32, accounting::Dtype::kBf16,
                              accounting::Dtype::kFp16, accounting::Dtype::kFp8}) {
    auto peak = accounting::MeasuredPeak(c, d, file.path());
    if (peak.ok()) FUZZ_CHECK(peak->flops_per_s > 0 && std::isfinite(peak->flops_per_s));
  }

  const std::string out = fuzz::ScratchDir() + "/ceilings.json";
  FUZZ_CHECK(accounting::WriteCeilings(out, c).ok());
  auto again = accounting::ReadCeilings(out);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->machine == c.machine && again->method == c.method && again->date == c.date);
  FUZZ_CHECK(again->peak_flops == c.peak_flops);
  FUZZ_CHECK(again->gemm_flops_per_s == c.gemm_flops_per_s);
  FUZZ_CHECK(again->bandwidth_bytes_per_s == c.bandwidth_bytes_per_s);
  return 0;
}
