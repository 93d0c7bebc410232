// gpt_serve's figures, lines and JSON (serve_report.h).
#include "macro/serve_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "macro/gpt_decode_session.h"

namespace macro {

LatencyStats ComputeLatencyStats(const std::vector<double>& v) {
  LatencyStats s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.p50 = Percentile(v, 50);
  s.p90 = Percentile(v, 90);
  s.p99 = Percentile(v, 99);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

std::string BatchTimeline(const std::vector<ServeStep>& steps, double duration_s, int max_batch, int columns) {
  if (!(duration_s > 0) || columns < 1) return "";
  std::vector<double> weighted(columns, 0), time(columns, 0);
  const double width = duration_s / columns;
  for (const ServeStep& st : steps) {
    if (st.kind != ServeStepKind::kDecode) continue;
    // The step's time in each slice it overlaps.
    const double a = st.start_s, b = st.start_s + st.duration_s;
    for (int c = std::max(0, static_cast<int>(a / width)); c < columns && c * width < b; ++c) {
      const double overlap = std::min(b, (c + 1) * width) - std::max(a, c * width);
      if (overlap <= 0) continue;
      weighted[c] += overlap * st.batch;
      time[c] += overlap;
    }
  }
  std::string out;
  for (int c = 0; c < columns; ++c) {
    if (time[c] <= 0) {
      out += '.';
      continue;
    }
    const double mean = weighted[c] / time[c];
    const int digit = max_batch <= 9 ? static_cast<int>(std::lround(mean))
                                     : static_cast<int>(std::lround(9.0 * mean / max_batch));
    out += static_cast<char>('0' + std::clamp(digit, 0, 9));
  }
  return out;
}

ServeSummary Summarize(const ServeScheduler& s, int timeline_columns) {
  ServeSummary out;
  out.requests = static_cast<int>(s.records().size());
  std::vector<double> ttft, tpot, queue, prefill;
  for (const ServeRecord& r : s.records()) {
    out.output_tokens += r.tokens;
    if (!r.finished()) continue;
    ++out.finished;
    ttft.push_back(r.ttft_s() * 1e3);
    queue.push_back(r.queue_s() * 1e3);
    prefill.push_back((r.first_token_s - r.prefill_start_s) * 1e3);
    if (r.has_tpot()) tpot.push_back(r.tpot_s() * 1e3);
  }
  out.ttft_ms = ComputeLatencyStats(ttft);
  out.tpot_ms = ComputeLatencyStats(tpot);
  out.queue_ms = ComputeLatencyStats(queue);
  out.prefill_ms = ComputeLatencyStats(prefill);
  out.batch_histogram.assign(static_cast<size_t>(s.max_batch()) + 1, 0);
  double batch_time = 0;
  for (const ServeStep& st : s.steps()) {
    out.duration_s = std::max(out.duration_s, st.start_s + st.duration_s);
    if (st.kind == ServeStepKind::kPrefill) {
      ++out.prefill_steps;
      out.prefill_busy_s += st.duration_s;
    } else {
      ++out.decode_steps;
      out.decode_busy_s += st.duration_s;
      batch_time += st.duration_s * st.batch;
      ++out.batch_histogram[std::min(st.batch, s.max_batch())];
    }
  }
  if (out.decode_busy_s > 0) out.mean_decode_batch = batch_time / out.decode_busy_s;
  if (out.duration_s > 0) {
    out.requests_per_s = out.finished / out.duration_s;
    out.output_tokens_per_s = static_cast<double>(out.output_tokens) / out.duration_s;
  }
  out.timeline = BatchTimeline(s.steps(), out.duration_s, s.max_batch(), timeline_columns);
  return out;
}

namespace {

std::string StatsRow(const char* name, const LatencyStats& l, const char* note) {
  if (l.n == 0) return absl::StrFormat("%-8s %10s %10s %10s %10s   %s (no samples)", name, "-", "-", "-", "-", note);
  return absl::StrFormat("%-8s %10.1f %10.1f %10.1f %10.1f   %s", name, l.p50, l.p90, l.p99, l.mean, note);
}

}  // namespace

std::vector<std::string> SummaryLines(const ServeSummary& s, int max_batch) {
  std::vector<std::string> lines;
  lines.push_back(absl::StrFormat("%-8s %10s %10s %10s %10s", "ms", "p50", "p90", "p99", "mean"));
  lines.push_back(StatsRow("TTFT", s.ttft_ms, "time to first token: arrival to the end of its prefill"));
  lines.push_back(StatsRow("TPOT", s.tpot_ms, "time per output token after the first (requests of >= 2 tokens)"));
  lines.push_back(StatsRow("queue", s.queue_ms, "waiting for a slot, before the prefill starts (part of TTFT)"));
  lines.push_back(StatsRow("prefill", s.prefill_ms, "the prefill's compute (TTFT - queue)"));
  lines.push_back(absl::StrFormat(
      "throughput  %.2f requests/s, %.1f output tokens/s (%d of %d requests, %d tokens in %.2f s from t=0 to the last "
      "step)",
      s.requests_per_s, s.output_tokens_per_s, s.finished, s.requests, s.output_tokens, s.duration_s));
  const double busy = s.prefill_busy_s + s.decode_busy_s;
  lines.push_back(absl::StrFormat(
      "steps       %d prefill (%.2f s), %d decode (%.2f s, mean batch %.2f of %d, time-weighted); idle %.2f s",
      s.prefill_steps, s.prefill_busy_s, s.decode_steps, s.decode_busy_s, s.mean_decode_batch, max_batch,
      std::max(0.0, s.duration_s - busy)));
  std::string hist = "decode batch sizes (steps):";
  for (size_t b = 1; b < s.batch_histogram.size(); ++b) absl::StrAppend(&hist, " ", b, ":", s.batch_histogram[b]);
  lines.push_back(hist);
  lines.push_back(absl::StrFormat("decode batch over time, %zu slices of %.2f s (%s; '.': no decode step):",
                                  s.timeline.size(), s.timeline.empty() ? 0.0 : s.duration_s / s.timeline.size(),
                                  max_batch <= 9 ? "the mean batch" : "the mean batch as 0-9 of max_batch"));
  lines.push_back(absl::StrCat("  |", s.timeline, "|"));
  return lines;
}

std::string LimitCheck::Line() const {
  return absl::StrFormat("%s p99 %.1f ms %s limit %g ms: %s", name, p99_ms, pass ? "<=" : ">", limit_ms,
                         pass ? "PASS" : "FAIL");
}

std::vector<LimitCheck> CheckLimits(const ServeSummary& s, double ttft_limit_ms, double tpot_limit_ms) {
  std::vector<LimitCheck> out;
  const bool all = s.finished == s.requests;
  if (ttft_limit_ms > 0) out.push_back({"TTFT", s.ttft_ms.p99, ttft_limit_ms, all && s.ttft_ms.p99 <= ttft_limit_ms});
  if (tpot_limit_ms > 0) {
    // No sample: every request was one token long, so no time per output token to exceed.
    const bool none = s.tpot_ms.n == 0;
    out.push_back({none ? "TPOT (no samples)" : "TPOT", s.tpot_ms.p99, tpot_limit_ms,
                   all && (none || s.tpot_ms.p99 <= tpot_limit_ms)});
  }
  return out;
}

bool AllPass(const std::vector<LimitCheck>& checks) {
  return std::all_of(checks.begin(), checks.end(), [](const LimitCheck& c) { return c.pass; });
}

namespace {

nlohmann::ordered_json StatsJson(const LatencyStats& l) {
  return {{"n", l.n}, {"p50", l.p50}, {"p90", l.p90}, {"p99", l.p99}, {"mean", l.mean}};
}

}  // namespace

nlohmann::ordered_json SummaryJson(const ServeSummary& s) {
  nlohmann::ordered_json j;
  j["requests"] = s.requests;
  j["finished"] = s.finished;
  j["output_tokens"] = s.output_tokens;
  j["duration_s"] = s.duration_s;
  j["requests_per_s"] = s.requests_per_s;
  j["output_tokens_per_s"] = s.output_tokens_per_s;
  j["ttft_ms"] = StatsJson(s.ttft_ms);
  j["tpot_ms"] = StatsJson(s.tpot_ms);
  j["queue_ms"] = StatsJson(s.queue_ms);
  j["prefill_ms"] = StatsJson(s.prefill_ms);
  j["prefill_steps"] = s.prefill_steps;
  j["decode_steps"] = s.decode_steps;
  j["prefill_busy_s"] = s.prefill_busy_s;
  j["decode_busy_s"] = s.decode_busy_s;
  j["mean_decode_batch"] = s.mean_decode_batch;
  j["decode_batch_histogram"] = s.batch_histogram;
  j["decode_batch_timeline"] = s.timeline;
  return j;
}

nlohmann::ordered_json RunJson(const ServeScheduler& s, const ServeSummary& summary) {
  nlohmann::ordered_json j;
  j["summary"] = SummaryJson(summary);
  nlohmann::ordered_json reqs = nlohmann::ordered_json::array();
  for (const ServeRecord& r : s.records()) {
    nlohmann::ordered_json q;
    q["id"] = r.request.id;
    q["arrival_s"] = r.request.arrival_s;
    q["prompt"] = r.request.prompt;
    q["output"] = r.request.output;
    q["slot"] = r.slot;
    q["queue_s"] = r.prefill_start_s >= 0 ? nlohmann::ordered_json(r.queue_s()) : nlohmann::ordered_json();
    q["ttft_s"] = r.first_token_s >= 0 ? nlohmann::ordered_json(r.ttft_s()) : nlohmann::ordered_json();
    q["tpot_s"] = r.has_tpot() ? nlohmann::ordered_json(r.tpot_s()) : nlohmann::ordered_json();
    q["finish_s"] = r.finished() ? nlohmann::ordered_json(r.finish_s) : nlohmann::ordered_json();
    q["tokens"] = r.tokens;
    reqs.push_back(std::move(q));
  }
  j["requests"] = std::move(reqs);
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const ServeStep& st : s.steps()) {
    steps.push_back({{"start_s", st.start_s},
                     {"duration_s", st.duration_s},
                     {"kind", ServeStepKindName(st.kind)},
                     {"batch", st.batch},
                     {"tokens", st.tokens}});
  }
  j["steps"] = std::move(steps);
  return j;
}

}  // namespace macro
