// Case's counter accessors: the names micro/ and macro/ use for the same quantity.
#include "tools/report/run_data.h"

#include <cmath>

namespace report {

std::optional<double> Case::Counter(const std::string& key) const {
  auto it = counters.find(key);
  if (it == counters.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

namespace {
std::optional<double> First(const Case& c, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (auto v = c.Counter(k)) return v;
  }
  return std::nullopt;
}
}  // namespace

std::optional<double> Case::FlopsPerSecond() const { return First(*this, {"FLOP/s", "flops_per_second"}); }

std::optional<double> Case::BytesPerSecond() const { return First(*this, {"bytes/s", "bytes_per_second"}); }

std::optional<double> Case::Intensity() const {
  if (auto v = Counter("intensity"); v && *v > 0) return v;
  auto f = FlopsPerSecond();
  auto b = BytesPerSecond();
  if (f && b && *b > 0) return *f / *b;
  return std::nullopt;
}

std::optional<double> Case::PeakFlops() const { return First(*this, {"peak_FLOP/s", "peak_flops"}); }

std::optional<double> Case::PeakBytes() const { return First(*this, {"peak_bytes/s"}); }

std::optional<double> Case::PctOfPeak() const {
  if (auto v = Counter("pct_of_peak")) return v;
  if (auto m = Counter("mfu")) return 100 * *m;
  return std::nullopt;
}

std::optional<double> Case::PctOfRoofline() const { return Counter("pct_of_roofline"); }

std::optional<double> Case::Verified() const {
  auto it = counters.find("verified");
  if (it == counters.end()) return std::nullopt;
  return std::isfinite(it->second) ? std::optional<double>(it->second) : std::optional<double>(0.0);
}

bool Case::Skipped() const { return error.rfind("skipped: ", 0) == 0; }

std::string Case::PeakSource() const {
  static const std::string kStart = "peak: ", kInner = "; peak: ";
  if (label.compare(0, kStart.size(), kStart) == 0) return label.substr(kStart.size());
  size_t at = label.find(kInner);
  return at == std::string::npos ? "" : label.substr(at + kInner.size());
}

std::string RunData::ContextValue(const std::string& key) const {
  for (const auto& [k, v] : context) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace report
