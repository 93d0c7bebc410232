// MFU rating bands for LLM training on GPUs (this project's reading of published MFUs: PaLM 46%,
// llm.c ~50%, and the roofline-and-MFU source text's table): < 20% problem, 20-35% low, 35-45% fair,
// 45-55% good, 55-60% excellent, > 60% check the formula (or an fp8 peak). Lower bounds are
// inclusive. The ceiling of 60% rather than 100% is the time a GPU step spends on what is not
// model FLOPs (communication, LayerNorm and softmax, data loading, kernel launches, the optimizer).
//
// The bands describe GPUs against their datasheet peaks. On a CPU the MFU divides by a peak
// measured on the run's own cores (a register-resident FMA or bf16 loop, macro/rank_peak.h), which
// a GEMM reaches at 90-98%: a correct gpt2 step on a Zen 4 VM reads 75-80%, in the GPU bands'
// "check the formula". So a CPU run gets no band verdict: MfuRatingText says what its figure means.
#ifndef ACCOUNTING_MFU_RATING_H_
#define ACCOUNTING_MFU_RATING_H_

#include <string>
#include <vector>

namespace accounting {

// What the bands are of; every text that names a band names this too.
inline constexpr char kMfuBandsScope[] = "LLM training on GPUs";

struct MfuBand {
  double lower;        // inclusive, fraction (0.20)
  double upper;        // exclusive; +inf for the last band
  std::string name;    // machine-readable: "problem", "low", "fair", "good", "excellent",
                       // "check-formula"
  std::string advice;  // what to do, from the seed
};

const std::vector<MfuBand>& MfuBands();
// The band containing `mfu` (a fraction; negative values fall in the first band).
const MfuBand& RateMfu(double mfu);
// "< 20.00%", "45.00% to 55.00%", ">= 60.00%".
std::string MfuBandRange(const MfuBand& band);

// The rating line's text (after "MFU rating    "):
//   GPU: "good (45.00% to 55.00% for LLM training on GPUs): good: already decent"
//   CPU: "none on a CPU: 79.81% is of the CPU peak on the peak line above (...), not of a GPU's
//        datasheet peak, so the bands for LLM training on GPUs (...) do not apply; <floor>"
// `floor`: what the CPU's figure is to be read against ("the step takes 1.25x its floor above"),
// or "" when there is none.
std::string MfuRatingText(double mfu, bool on_gpu, const std::string& floor);

}  // namespace accounting

#endif  // ACCOUNTING_MFU_RATING_H_
