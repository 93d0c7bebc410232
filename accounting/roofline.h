// The roofline: attainable FLOP/s = min(peak, intensity * bandwidth).
// The ridge point (peak / bandwidth, FLOP/byte) splits memory-bound (left, the slope) from
// compute-bound (right, the flat roof). A100: 312e12 / 2.0e12 = 156 FLOP/byte (Williams, Waterman and Patterson, "Roofline", CACM 2009).
#ifndef ACCOUNTING_ROOFLINE_H_
#define ACCOUNTING_ROOFLINE_H_

namespace accounting {

struct RooflineResult {
  double intensity = 0;               // flops / bytes (FLOP/byte)
  double ridge = 0;                   // peak / bandwidth (FLOP/byte)
  double bound_flops_per_s = 0;       // intensity * bandwidth: the memory roof at this intensity
  double attainable_flops_per_s = 0;  // min(peak, bound_flops_per_s)
  bool memory_bound = false;          // intensity < ridge
  double achieved_flops_per_s = 0;    // flops / seconds when seconds > 0, else 0
  double fraction_of_bound = 0;       // achieved / attainable when seconds > 0, else 0
};

// peak, bandwidth, flops, bytes > 0 expected (callers validate input; zero bytes gives
// intensity 0). seconds: measured time of the op, 0 when none.
RooflineResult Roofline(double peak_flops_per_s, double bandwidth, double flops, double bytes,
                        double seconds = 0);

}  // namespace accounting

#endif  // ACCOUNTING_ROOFLINE_H_
