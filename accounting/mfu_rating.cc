// MFU rating bands (mfu_rating.h).
#include "accounting/mfu_rating.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "accounting/mfu.h"

namespace accounting {

const std::vector<MfuBand>& MfuBands() {
  static const std::vector<MfuBand>* bands = new std::vector<MfuBand>{
      {-std::numeric_limits<double>::infinity(), 0.20, "problem",
       "obvious problem: check the data pipeline first (most often the GPU is not fed)"},
      {0.20, 0.35, "low", "low: check activation checkpointing, communication, operator fusion"},
      {0.35, 0.45, "fair", "fair: routine optimisation still has room"},
      {0.45, 0.55, "good", "good: already decent"},
      {0.55, 0.60, "excellent", "excellent: close to the ceiling"},
      {0.60, std::numeric_limits<double>::infinity(), "check-formula",
       "above 60%: check the formula (or an fp8 peak was used)"},
  };
  return *bands;
}

const MfuBand& RateMfu(double mfu) {
  const auto& bands = MfuBands();
  for (const auto& b : bands) {
    if (mfu < b.upper) return b;
  }
  return bands.back();  // NaN lands here: "check the formula"
}

std::string MfuBandRange(const MfuBand& band) {
  if (std::isinf(band.lower)) return absl::StrCat("< ", FormatPercent(band.upper, 2));
  if (std::isinf(band.upper)) return absl::StrCat(">= ", FormatPercent(band.lower, 2));
  return absl::StrCat(FormatPercent(band.lower, 2), " to ", FormatPercent(band.upper, 2));
}

std::string MfuRatingText(double mfu, bool on_gpu, const std::string& floor) {
  if (on_gpu) {
    const MfuBand& band = RateMfu(mfu);
    return absl::StrCat(band.name, " (", MfuBandRange(band), " for ", kMfuBandsScope, "): ", band.advice);
  }
  return absl::StrCat(
      "none on a CPU: ", FormatPercent(mfu, 2),
      " is of the CPU peak on the peak line above (when measured, a register-resident FMA or bf16 "
      "loop on this run's cores, which GEMMs alone only approach), not of a GPU's datasheet peak, so "
      "the bands for ",
      kMfuBandsScope, " (45-55% good, above 60% check the formula) do not apply", floor.empty() ? "" : "; ",
      floor);
}

}  // namespace accounting
