// Linear and log10 scales, ticks and nice domains.
#include "tools/report/scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace report {

LinearScale::LinearScale(double lo, double hi, double range_lo, double range_hi)
    : lo_(lo), hi_(hi), r0_(range_lo), r1_(range_hi) {
  if (!std::isfinite(lo_) || !std::isfinite(hi_)) lo_ = 0, hi_ = 1;
  if (lo_ == hi_) lo_ -= 1, hi_ += 1;
}

double LinearScale::operator()(double v) const { return r0_ + (v - lo_) / (hi_ - lo_) * (r1_ - r0_); }

std::vector<double> LinearScale::Ticks(int max_ticks) const {
  std::vector<double> ticks;
  const double span = std::fabs(hi_ - lo_);
  if (!(span > 0) || max_ticks < 1) return ticks;
  const double raw = span / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double a = std::min(lo_, hi_), b = std::max(lo_, hi_);
  for (double t = std::ceil(a / step - 1e-9) * step; t <= b + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

namespace {

// The integer powers of `base` from lo to hi (an end within 1e-9 of an exponent counts as on it).
std::vector<double> PowersOf(double base, double lo, double hi) {
  const double log_base = std::log(base);
  std::vector<double> powers;
  for (int e = static_cast<int>(std::ceil(std::log(lo) / log_base - 1e-9));
       e <= static_cast<int>(std::floor(std::log(hi) / log_base + 1e-9)); ++e) {
    powers.push_back(std::pow(base, e));
  }
  return powers;
}

}  // namespace

LogScale::LogScale(double lo, double hi, double range_lo, double range_hi)
    : lo_(lo), hi_(hi), r0_(range_lo), r1_(range_hi) {
  if (!(lo_ > 0) || !(hi_ > lo_) || !std::isfinite(hi_)) lo_ = 1, hi_ = 10;
}

double LogScale::operator()(double v) const {
  if (!(v > 0) || !std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  return r0_ + (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_)) * (r1_ - r0_);
}

double LogScale::Invert(double px) const {
  const double t = (px - r0_) / (r1_ - r0_);
  return std::pow(10.0, std::log10(lo_) + t * (std::log10(hi_) - std::log10(lo_)));
}

double LogScale::PixelsPerDecade() const { return (r1_ - r0_) / (std::log10(hi_) - std::log10(lo_)); }

std::vector<double> LogScale::DecadeTicks() const { return PowersOf(10, lo_, hi_); }

std::vector<double> LogScale::PowerOfTwoTicks() const { return PowersOf(2, lo_, hi_); }

Domain NiceLogDomain(const std::vector<double>& values, double min_decades) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : values) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(hi > 0)) return {1, 10};
  double a = std::floor(std::log10(lo) + 1e-9), b = std::ceil(std::log10(hi) - 1e-9);
  if (b <= a) b = a + 1;
  while (b - a < min_decades) {
    // Widen on the side with less room around the data first, alternating.
    if (std::log10(lo) - a <= b - std::log10(hi))
      a -= 1;
    else
      b += 1;
  }
  return {std::pow(10.0, a), std::pow(10.0, b)};
}

Domain NiceLinearDomainFromZero(const std::vector<double>& values, double headroom) {
  double hi = 0;
  for (double v : values) {
    if (std::isfinite(v)) hi = std::max(hi, v);
  }
  if (!(hi > 0)) return {0, 1};
  hi *= 1 + headroom;
  const double mag = std::pow(10.0, std::floor(std::log10(hi)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= hi) return {0, m * mag};
  }
  return {0, 10 * mag};
}

Domain PowerOfTwoDomain(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : values) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(hi > 0)) return {1, 2};
  double a = std::floor(std::log2(lo) + 1e-9), b = std::ceil(std::log2(hi) - 1e-9);
  if (b <= a) a -= 1, b += 1;
  return {std::ldexp(1.0, static_cast<int>(a)), std::ldexp(1.0, static_cast<int>(b))};
}

}  // namespace report
