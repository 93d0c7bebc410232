// MediansByPoint and SummaryLines (sweep_summary.h).
#include "tools/sweep/sweep_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/mfu_knee.h"

namespace sweep {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median of `key` over the entries that have it as a number; -1 when none does.
double MedianOf(const std::vector<const nlohmann::json*>& entries, const char* key) {
  std::vector<double> v;
  for (const nlohmann::json* e : entries) {
    auto it = e->find(key);
    if (it != e->end() && it->is_number()) v.push_back(it->get<double>());
  }
  return Median(v);
}

std::string Gb(double b) { return b < 0 ? "n/a" : absl::StrFormat("%.2f GB", b / 1e9); }

// Each curve (preset, dtype, recompute): its knee and the points off its trend. A curve has one
// MFU per B*T: where several (B, T) give one B*T, the best of them (as the report draws it).
std::vector<std::string> KneeLines(const std::vector<PlannedPoint>& planned, const std::vector<PointMedians>& medians) {
  std::map<std::string, std::map<double, const PointMedians*>> curves;
  for (const PointMedians& m : medians) {
    const SweepPoint& p = planned[m.point].point;
    if (!(m.mfu > 0)) continue;
    const std::string curve = absl::StrCat(p.preset, " ", p.dtype, p.recompute == "none" ? "" : " recompute=",
                                           p.recompute == "none" ? "" : p.recompute);
    const PointMedians*& slot = curves[curve][m.tokens];
    if (slot == nullptr || m.mfu > slot->mfu) slot = &m;
  }
  std::vector<std::string> out;
  for (const auto& [name, by_tokens] : curves) {
    std::vector<accounting::CurvePoint> c;
    std::vector<const PointMedians*> at;
    for (const auto& [tokens, m] : by_tokens) {
      c.push_back({tokens, m->mfu, m->mfu_max - m->mfu_min});
      at.push_back(m);
    }
    auto knee = accounting::FindKnee(c);
    if (!knee.ok()) continue;
    const SweepPoint& k = planned[at[knee->index]->point].point;
    out.push_back(absl::StrFormat("  knee: %s: B*T = %.0f (B=%d T=%d), MFU %.2f%% = %.0f%% of the best %.2f%% (B*T = %.0f)",
                                  name, knee->x, k.batch, k.seq, 100 * knee->y, 100 * knee->fraction_of_best,
                                  100 * knee->best_y, c[knee->best_index].x));
    auto breaks = accounting::FindTrendBreaks(c);
    if (!breaks.ok()) continue;
    for (const accounting::TrendBreak& b : *breaks) {
      out.push_back(absl::StrFormat("  trend break: %s at B*T = %.0f: MFU %.2f%%, %.2f points off the line through "
                                    "its neighbours (%.2f%%), beyond the repetitions' spread %.2f",
                                    name, c[b.index].x, 100 * c[b.index].y, 100 * b.deviation,
                                    100 * b.expected_y, 100 * b.allowed));
    }
  }
  return out;
}

}  // namespace

std::vector<PointMedians> MediansByPoint(const std::vector<PlannedPoint>& planned, const SweepOutput& output) {
  std::map<int, std::vector<const nlohmann::json*>> by_point;
  for (const auto& [point, entry] : output.runs()) {
    if (!entry.value("error_occurred", false)) by_point[point].push_back(&entry);
  }
  std::vector<PointMedians> out;
  for (const auto& [point, entries] : by_point) {
    PointMedians m;
    m.point = point;
    m.runs = static_cast<int>(entries.size());
    m.tokens = static_cast<double>(planned[point].point.tokens());
    m.ms_per_step = MedianOf(entries, "ms_per_step");
    m.mfu = MedianOf(entries, "mfu");
    std::vector<double> mfus;
    for (const nlohmann::json* e : entries) {
      if (e->contains("mfu") && (*e)["mfu"].is_number()) mfus.push_back((*e)["mfu"].get<double>());
    }
    if (!mfus.empty()) {
      m.mfu_min = *std::min_element(mfus.begin(), mfus.end());
      m.mfu_max = *std::max_element(mfus.begin(), mfus.end());
    }
    m.predicted_ms = MedianOf(entries, "predicted_ms");
    m.predicted_gemm_ms = MedianOf(entries, "predicted_gemm_ms");
    m.predicted_attention_ms = MedianOf(entries, "predicted_attention_ms");
    m.predicted_memory_ops_ms = MedianOf(entries, "predicted_memory_ops_ms");
    m.predicted_adamw_ms = MedianOf(entries, "predicted_adamw_ms");
    m.peak_bytes_measured = MedianOf(entries, "mem_peak_bytes_measured");
    m.predicted_peak_bytes = MedianOf(entries, "mem_peak_bytes");
    out.push_back(m);
  }
  return out;
}

std::vector<std::string> SummaryLines(const std::vector<PlannedPoint>& planned, const SweepOutput& output) {
  std::vector<std::string> out;
  const std::vector<PointMedians> medians = MediansByPoint(planned, output);
  out.push_back("sweep: medians over each point's runs (MFU min..max over them):");
  out.push_back(absl::StrFormat("  %-34s %11s %22s %12s %9s  %s", "point", "ms/step", "MFU", "predicted",
                                "measured/", "peak memory (VmHWM) of predicted"));
  std::vector<std::string> findings;
  for (const PointMedians& m : medians) {
    const SweepPoint& p = planned[m.point].point;
    const double ratio = m.predicted_ms > 0 ? m.ms_per_step / m.predicted_ms : -1;
    out.push_back(absl::StrFormat("  %-34s %11.4g %8.2f%% (%.2f..%.2f) %9.4g ms %9s  %s of %s", p.Short(),
                                  m.ms_per_step, 100 * m.mfu, 100 * m.mfu_min, 100 * m.mfu_max, m.predicted_ms,
                                  ratio > 0 ? absl::StrFormat("%.2fx", ratio) : "n/a", Gb(m.peak_bytes_measured),
                                  Gb(m.predicted_peak_bytes)));
    // Within 25% of the measurement: |predicted - measured| <= 25% of measured (tools/report's band).
    const double off = m.predicted_ms > 0 && m.ms_per_step > 0 ? m.predicted_ms / m.ms_per_step - 1 : 0;
    if (std::fabs(off) > kPredictionTolerance) {
      findings.push_back(absl::StrFormat(
          "  %s: the prediction is %.0f%% %s the measurement, which took %.2fx it (%.4g ms against %.4g = GEMMs "
          "%.4g + attention %.4g + memory-bound ops %.4g + AdamW %.4g)",
          p.Short(), 100 * std::fabs(off), off < 0 ? "below" : "above", ratio, m.ms_per_step, m.predicted_ms, m.predicted_gemm_ms, m.predicted_attention_ms,
          m.predicted_memory_ops_ms, m.predicted_adamw_ms));
    }
  }
  if (findings.empty()) {
    out.push_back(absl::StrFormat("sweep: the prediction is within %.0f%% of the measurement at every point",
                                  100 * kPredictionTolerance));
  } else {
    out.push_back(absl::StrFormat("sweep: FINDING: the prediction misses by more than %.0f%% at %zu point(s); "
                                  "look into the term it lacks there:",
                                  100 * kPredictionTolerance, findings.size()));
    for (std::string& f : findings) out.push_back(std::move(f));
  }
  out.push_back("sweep: each curve's knee (the smallest B*T at 90% of its best MFU) and its trend breaks:");
  for (std::string& line : KneeLines(planned, medians)) out.push_back(std::move(line));
  return out;
}

}  // namespace sweep
