// MFU rating bands (mfu_rating.h).
#include "accounting/mfu_rating.h"

#include <limits>

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

}  // namespace accounting
