// JudgeDisturbance and the label convention (disturbed.h).
#include "accounting/disturbed.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace accounting {
namespace {

constexpr char kLabelSeparator[] = " || ";

}  // namespace

double BestProbe(const PeakProbes& p) { return std::max({p.before, p.after, 0.0}); }

double ProbeSpread(const PeakProbes& p) {
  if (!p.both()) return 0;
  const double hi = std::max(p.before, p.after), lo = std::min(p.before, p.after);
  return (hi - lo) / hi;
}

std::string DescribeProbes(const PeakProbes& p) {
  if (!p.both()) return "";
  const std::string records = DescribeRecords(p);
  return absl::StrFormat("probes: before %.1f G%s, after %.1f G%s, best taken (they differ by %.1f%%)%s%s",
                         p.before / 1e9, p.unit, p.after / 1e9, p.unit, 100 * ProbeSpread(p),
                         records.empty() ? "" : "; ", records);
}

bool BelowRecord(const RecordCheck& c) {
  if (!(c.figure > 0) || !std::isfinite(c.figure) || !(c.record > 0) || !std::isfinite(c.record))
    return false;
  return c.figure < (1 - kMaxBelowRecord) * c.record;
}

std::optional<RecordCheck> WorstRecordCheck(const PeakProbes& p) {
  std::optional<RecordCheck> worst;
  for (const RecordCheck& c : p.records) {
    if (!(c.figure > 0) || !std::isfinite(c.figure) || !(c.record > 0) || !std::isfinite(c.record)) continue;
    if (!worst || c.figure / c.record < worst->figure / worst->record) worst = c;
  }
  return worst;
}

std::string DescribeRecords(const PeakProbes& p) {
  std::vector<std::string> parts;
  for (const RecordCheck& c : p.records) {
    if (!(c.record > 0) || !(c.figure > 0)) continue;
    parts.push_back(absl::StrFormat("%s %.1f G%s (%s), this run %.1f%% of it", c.what, c.record / 1e9, c.unit,
                                    c.keyed, 100 * c.figure / c.record));
  }
  if (parts.empty()) return "";
  return absl::StrCat("this machine's record",
                      p.record_file.empty() ? "" : absl::StrCat(" (", p.record_file, ")"), ": ",
                      absl::StrJoin(parts, "; "));
}

Disturbance JudgeDisturbance(const std::vector<CeilingUse>& uses, const PeakProbes& probes,
                             double max_spread) {
  std::vector<std::string> why;
  for (const CeilingUse& u : uses) {
    if (!(u.ceiling > 0) || !std::isfinite(u.ceiling) || !std::isfinite(u.achieved)) continue;
    const double ratio = u.achieved / u.ceiling;
    if (ratio > 1 + kCeilingTolerance) {
      why.push_back(absl::StrFormat("%s %.2f%% > 100%%: %.4g %s achieved above the ceiling %.4g %s", u.what,
                                    100 * ratio, u.achieved, u.unit, u.ceiling, u.unit));
    }
  }
  if (probes.both() && ProbeSpread(probes) > max_spread) {
    why.push_back(absl::StrFormat(
        "the peak probes before (%.1f G%s) and after (%.1f G%s) the timed work differ by %.1f%% > %.0f%%",
        probes.before / 1e9, probes.unit, probes.after / 1e9, probes.unit, 100 * ProbeSpread(probes),
        100 * max_spread));
  }
  bool below = false;
  for (const RecordCheck& c : probes.records) {
    if (!BelowRecord(c)) continue;
    below = true;
    why.push_back(absl::StrFormat(
        "the %s %.1f G%s is %.1f%% of this machine's record %.1f G%s (%s), more than %.0f%% below it", c.what,
        c.figure / 1e9, c.unit, 100 * c.figure / c.record, c.record / 1e9, c.unit, c.keyed,
        100 * kMaxBelowRecord));
  }
  if (below && !probes.record_file.empty())
    absl::StrAppend(&why.back(), " (record: ", probes.record_file, ")");
  Disturbance d;
  d.disturbed = !why.empty();
  d.reason = absl::StrJoin(why, "; ");
  return d;
}

std::string DisturbedLabel(const Disturbance& d, const std::string& label) {
  if (!d.disturbed) return label;
  return absl::StrCat(kDisturbedLabelPrefix, d.reason, label.empty() ? "" : kLabelSeparator, label);
}

std::optional<std::string> DisturbedReasonFromLabel(const std::string& label) {
  if (!absl::StartsWith(label, kDisturbedLabelPrefix)) return std::nullopt;
  std::string rest = label.substr(sizeof(kDisturbedLabelPrefix) - 1);
  const size_t end = rest.find(kLabelSeparator);
  return end == std::string::npos ? rest : rest.substr(0, end);
}

}  // namespace accounting
