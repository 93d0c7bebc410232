// Table and markdown output of the gate; see gate_report.h.
#include "tools/gate/gate_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gate {
namespace {

// A case with a change and a p-value: both runs had it, verified.
bool Compared(const CaseResult& c) {
  return c.status == CaseStatus::kRegressed || c.status == CaseStatus::kImproved ||
         c.status == CaseStatus::kSame;
}
bool HasBaselineValue(const CaseResult& c) {
  return c.status != CaseStatus::kNew && c.status != CaseStatus::kUnverified &&
         c.status != CaseStatus::kSkipped;
}
bool HasCurrentValue(const CaseResult& c) {
  return c.status != CaseStatus::kMissing && c.status != CaseStatus::kUnverified &&
         c.status != CaseStatus::kSkipped;
}
const char* TestName(const ReportHeader& h) { return h.paired ? h.paired_test.c_str() : "Mann-Whitney U"; }

std::string Change(const CaseResult& c) {
  if (!Compared(c)) return "-";
  return absl::StrFormat("%+.1f%%", 100.0 * c.change);
}

std::string PValue(const CaseResult& c) {
  if (!Compared(c)) return "-";
  return absl::StrFormat("%.2g%s", c.p_value, c.exact ? "" : "~");
}

std::string PRaw(const CaseResult& c) {
  if (!Compared(c)) return "-";
  return absl::StrFormat("%.2g", c.p_raw);
}

std::string Value(double v, bool shown, bool is_time) { return shown ? FormatValue(v, is_time) : "-"; }

std::string Counts(const Comparison& cmp) {
  std::string s;
  for (CaseStatus st : {CaseStatus::kRegressed, CaseStatus::kImproved, CaseStatus::kSame, CaseStatus::kNew,
                        CaseStatus::kMissing, CaseStatus::kUnverified, CaseStatus::kSkipped}) {
    absl::StrAppend(&s, s.empty() ? "" : ", ", cmp.Count(st), " ", StatusName(st));
  }
  return s;
}

std::string MinEffect(const ReportHeader& h) {
  std::string t = absl::StrFormat("%.1f%%", 100 * h.threshold);
  if (h.noise_floor <= 0 || h.paired) return t;
  return absl::StrCat("max(", t, ", ", h.noise_floor == 1 ? "" : absl::StrFormat("%g x ", h.noise_floor),
                      "baseline IQR/median)");
}

std::string Calibration(const Comparison& cmp) {
  if (!cmp.calibrated) return "none";
  return absl::StrFormat("%s ran %.3fx the baseline's time (%s)", cmp.calibration_case,
                         cmp.calibration_factor,
                         cmp.normalized ? "current values divided by that"
                                        : "shown only; --normalize divides current values by it");
}

}  // namespace

std::string FormatValue(double v, bool is_time) {
  if (!is_time) return absl::StrFormat("%.4g", v);
  double a = std::fabs(v);
  if (a >= 1) return absl::StrFormat("%.4g s", v);
  if (a >= 1e-3) return absl::StrFormat("%.4g ms", v * 1e3);
  if (a >= 1e-6) return absl::StrFormat("%.4g us", v * 1e6);
  return absl::StrFormat("%.4g ns", v * 1e9);
}

std::string FormatTable(const ReportHeader& h, const Comparison& cmp, bool is_time) {
  std::string out;
  absl::StrAppend(&out, "gate: machine key '", h.key, "', suite '", h.suite, "'\n");
  absl::StrAppend(&out, "gate: baseline ", h.baseline_path, h.baseline_exists ? "" : " (does not exist)",
                  "\n");
  absl::StrAppend(
      &out, absl::StrFormat("gate: metric %s; REGRESSED/IMPROVED = change >= %s and one-sided "
                            "%s p < %g%s\n",
                            h.metric, MinEffect(h), TestName(h), h.alpha, h.holm ? " (Holm-adjusted)" : ""));
  absl::StrAppend(&out, "gate: calibration: ", Calibration(cmp), "\n");
  size_t width = 40;
  for (const CaseResult& c : cmp.cases) width = std::max(width, c.name.size());
  absl::StrAppend(&out, absl::StrFormat("%-10s  %-*s  %12s  %12s  %8s  %8s  %8s  %s\n", "status", width,
                                        "case", "baseline", "current", "change", "p", "p raw", "note"));
  for (const CaseResult& c : cmp.cases) {
    bool base = HasBaselineValue(c);
    bool cur = HasCurrentValue(c);
    absl::StrAppend(
        &out, absl::StrFormat("%-10s  %-*s  %12s  %12s  %8s  %8s  %8s  %s\n", StatusName(c.status), width,
                              c.name, Value(c.baseline_median, base, is_time),
                              Value(c.current_median, cur, is_time), Change(c), PValue(c), PRaw(c), c.note));
  }
  for (const std::string& n : cmp.not_compared) {
    absl::StrAppend(&out, absl::StrFormat("%-10s  %-*s  (no %s)\n", "-", width, n, h.metric));
  }
  absl::StrAppend(&out, "gate: ", Counts(cmp), "  (p: one-sided",
                  h.holm ? absl::StrCat(", Holm-adjusted over ", cmp.compared, " cases") : "",
                  "; '~' = normal approximation)\n");
  for (const std::string& w : cmp.warnings) absl::StrAppend(&out, "gate: warning: ", w, "\n");
  return out;
}

std::string FormatMarkdown(const ReportHeader& h, const Comparison& cmp, bool is_time) {
  std::string out;
  int regressed = cmp.Count(CaseStatus::kRegressed);
  absl::StrAppend(&out, "## Performance gate: ",
                  !h.baseline_exists ? "no baseline for this machine"
                                     : (regressed > 0 ? absl::StrCat(regressed, " regression(s)") : "passed"),
                  "\n\n");
  absl::StrAppend(&out, "- machine key: `", h.key, "`, suite `", h.suite, "`\n");
  absl::StrAppend(&out, "- baseline: `", h.baseline_path, "`", h.baseline_exists ? "" : " (does not exist)",
                  "\n");
  absl::StrAppend(
      &out, absl::StrFormat("- metric: %s; regression = change >= %s and one-sided "
                            "%s p < %g%s\n",
                            h.metric, MinEffect(h), TestName(h), h.alpha,
                            h.holm ? absl::StrCat(" (Holm-adjusted over ", cmp.compared, " cases)") : ""));
  absl::StrAppend(&out, "- calibration: ", Calibration(cmp), "\n");
  absl::StrAppend(&out, "- ", Counts(cmp), "\n\n");
  absl::StrAppend(&out, "| status | case | baseline | current | change | p | p raw | note |\n");
  absl::StrAppend(&out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
  for (const CaseResult& c : cmp.cases) {
    bool base = HasBaselineValue(c);
    bool cur = HasCurrentValue(c);
    std::string status = StatusName(c.status);
    if (c.status == CaseStatus::kRegressed) status = "**" + status + "**";
    absl::StrAppend(&out, "| ", status, " | `", c.name, "` | ", Value(c.baseline_median, base, is_time),
                    " | ", Value(c.current_median, cur, is_time), " | ", Change(c), " | ", PValue(c), " | ",
                    PRaw(c), " | ", c.note, " |\n");
  }
  if (!cmp.warnings.empty()) {
    absl::StrAppend(&out, "\nWarnings:\n");
    for (const std::string& w : cmp.warnings) absl::StrAppend(&out, "- ", w, "\n");
  }
  if (regressed > 0 || !h.baseline_exists) {
    absl::StrAppend(&out, "\nTo record this run as the baseline:\n\n    ", h.update_command, "\n");
    if (!h.remeasure_command.empty()) {
      absl::StrAppend(&out, "\nor, measuring afresh on this machine:\n\n    ", h.remeasure_command, "\n");
    }
  }
  return out;
}

}  // namespace gate
