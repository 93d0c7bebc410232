// Roofline: attainable = min(peak, intensity x bandwidth).
#include "accounting/roofline.h"

#include <algorithm>

#include "accounting/costs.h"

namespace accounting {

RooflineResult Roofline(double peak_flops_per_s, double bandwidth, double flops, double bytes,
                        double seconds) {
  RooflineResult r;
  r.intensity = ArithmeticIntensity(flops, bytes);
  r.ridge = bandwidth > 0 ? peak_flops_per_s / bandwidth : 0;
  r.bound_flops_per_s = r.intensity * bandwidth;
  r.attainable_flops_per_s = std::min(peak_flops_per_s, r.bound_flops_per_s);
  r.memory_bound = r.intensity < r.ridge;
  if (seconds > 0) {
    r.achieved_flops_per_s = flops / seconds;
    r.fraction_of_bound =
        r.attainable_flops_per_s > 0 ? r.achieved_flops_per_s / r.attainable_flops_per_s : 0;
  }
  return r;
}

}  // namespace accounting
