// SI, time and percent formatting.
#include "tools/report/units.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace report {
namespace {

bool Usable(std::optional<double> v) { return v.has_value() && std::isfinite(*v); }

// Value scaled into [1, 1000) and its prefix.
std::pair<double, const char*> Prefix(double v) {
  static const char* kUp[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* kDown[] = {"", "m", "u", "n", "p"};
  double a = std::fabs(v);
  if (a == 0) return {v, ""};
  int i = 0;
  if (a >= 1) {
    while (a >= 999.5 && i < 6) a /= 1000, v /= 1000, ++i;
    return {v, kUp[i]};
  }
  while (a < 0.9995 && i < 4) a *= 1000, v *= 1000, ++i;
  return {v, kDown[i]};
}

}  // namespace

std::string FormatSi(std::optional<double> v, const std::string& unit) {
  if (!Usable(v)) return kMissing;
  auto [x, p] = Prefix(*v);
  std::string num = absl::StrFormat("%.3g", x);
  std::string sep = (unit.empty() && *p == '\0') ? "" : " ";
  return absl::StrCat(num, sep, p, unit);
}

std::string FormatSeconds(std::optional<double> seconds) {
  if (!Usable(seconds)) return kMissing;
  const double s = *seconds;
  const double a = std::fabs(s);
  if (a >= 1 || a == 0) return absl::StrFormat("%.3g s", s);
  if (a >= 1e-3) return absl::StrFormat("%.3g ms", s * 1e3);
  if (a >= 1e-6) return absl::StrFormat("%.3g us", s * 1e6);
  return absl::StrFormat("%.3g ns", s * 1e9);
}

std::string FormatPercent(std::optional<double> percent) {
  if (!Usable(percent)) return kMissing;
  return absl::StrFormat("%.1f%%", *percent);
}

std::string FormatPlain(std::optional<double> v) {
  if (!Usable(v)) return kMissing;
  return absl::StrFormat("%.3g", *v);
}

std::string FormatTick(double v) {
  if (!std::isfinite(v)) return "";
  if (std::fabs(v) < 1 && v != 0) return absl::StrFormat("%g", v);
  auto [x, p] = Prefix(v);
  return absl::StrCat(absl::StrFormat("%g", std::round(x * 100) / 100), p);
}

}  // namespace report
