// MFU rating bands (this project's reading of published MFUs: PaLM 46%, llm.c ~50%): < 20% problem, 20-35% low, 35-45% fair, 45-55% good,
// 55-60% excellent, > 60% check the formula (or an fp8 peak). Lower bounds are inclusive.
#ifndef ACCOUNTING_MFU_RATING_H_
#define ACCOUNTING_MFU_RATING_H_

#include <string>
#include <vector>

namespace accounting {

struct MfuBand {
  double lower;                // inclusive, fraction (0.20)
  double upper;                // exclusive; +inf for the last band
  std::string name;            // machine-readable: "problem", "low", "fair", "good", "excellent",
                               // "check-formula"
  std::string advice;          // what to do, from the seed
};

const std::vector<MfuBand>& MfuBands();
// The band containing `mfu` (a fraction; negative values fall in the first band).
const MfuBand& RateMfu(double mfu);

}  // namespace accounting

#endif  // ACCOUNTING_MFU_RATING_H_
