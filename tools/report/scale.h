// Axis scales of the charts: data value -> pixel, for linear and logarithmic axes, with tick
// positions and the "nice" domains around data.
//
// A LogScale maps log10(v) linearly: v = lo goes to range_lo, v = hi to range_hi, and one
// decade always spans the same number of pixels, (range_hi - range_lo) / log10(hi / lo).
// Screen y grows downwards, so a y axis is built with range (bottom, top).
#ifndef TOOLS_REPORT_SCALE_H_
#define TOOLS_REPORT_SCALE_H_

#include <vector>

namespace report {

class LinearScale {
 public:
  // lo != hi expected; a zero-width domain is widened to [lo - 1, lo + 1].
  LinearScale(double lo, double hi, double range_lo, double range_hi);
  double operator()(double v) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  // Ticks at 1, 2 or 5 x 10^k steps inside the domain, at most about `max_ticks`.
  std::vector<double> Ticks(int max_ticks = 6) const;

 private:
  double lo_, hi_, r0_, r1_;
};

class LogScale {
 public:
  // 0 < lo < hi expected; bad values are replaced by [1, 10] so a chart never divides by zero.
  LogScale(double lo, double hi, double range_lo, double range_hi);
  // v <= 0 or not finite: NaN (the caller skips the point).
  double operator()(double v) const;
  // Pixel -> value (the inverse).
  double Invert(double px) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double PixelsPerDecade() const;
  // Powers of ten inside [lo, hi] (the major ticks).
  std::vector<double> DecadeTicks() const;
  // Powers of two inside [lo, hi] (for sizes).
  std::vector<double> PowerOfTwoTicks() const;

 private:
  double lo_, hi_, r0_, r1_;
};

struct Domain {
  double lo = 0, hi = 0;
};

// The smallest [10^a, 10^b] holding every finite positive value of `values`, widened to at
// least `min_decades` decades (centred); [1, 10] when there is none.
Domain NiceLogDomain(const std::vector<double>& values, double min_decades = 1);

// [0, a nice value >= max * (1 + headroom)]: 1, 2, 2.5 or 5 x 10^k; [0, 1] when empty.
Domain NiceLinearDomainFromZero(const std::vector<double>& values, double headroom = 0.05);

// The smallest power-of-two interval [2^a, 2^b] around the positive values (b > a).
Domain PowerOfTwoDomain(const std::vector<double>& values);

}  // namespace report

#endif  // TOOLS_REPORT_SCALE_H_
