// OpTrace: span bookkeeping, self-time summary and Chrome trace output.
#include "macro/op_trace.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"
#include "harness/json_doc.h"
#include "nlohmann/json.hpp"

namespace macro {

void OpTrace::Begin(std::string name, std::string category, double start_us) {
  TraceSpan s;
  s.name = std::move(name);
  s.category = std::move(category);
  s.start_us = start_us;
  s.depth = static_cast<int>(open_.size());
  open_.push_back(spans_.size());
  spans_.push_back(std::move(s));
}

void OpTrace::End(double end_us) {
  if (open_.empty()) {
    ++unmatched_ends_;
    return;
  }
  TraceSpan& s = spans_[open_.back()];
  open_.pop_back();
  s.dur_us = std::max(0.0, end_us - s.start_us);
  if (!open_.empty()) spans_[open_.back()].child_us += s.dur_us;
}

void OpTrace::Clear() {
  spans_.clear();
  open_.clear();
  unmatched_ends_ = 0;
}

std::vector<OpSummary> OpTrace::TopBySelfTime(const std::string& category, int limit) const {
  std::map<std::string, OpSummary> by_name;
  double all_self = 0;
  for (const TraceSpan& s : spans_) {
    if (s.category != category) continue;
    OpSummary& o = by_name[s.name];
    o.name = s.name;
    o.calls += 1;
    o.self_us += s.self_us();
    o.total_us += s.dur_us;
    all_self += s.self_us();
  }
  std::vector<OpSummary> out;
  for (auto& [name, o] : by_name) {
    o.share = all_self > 0 ? o.self_us / all_self : 0;
    out.push_back(o);
  }
  std::sort(out.begin(), out.end(),
            [](const OpSummary& a, const OpSummary& b) { return a.self_us > b.self_us; });
  if (limit >= 0 && static_cast<int>(out.size()) > limit) out.resize(limit);
  return out;
}

absl::Status OpTrace::WriteChromeTrace(const std::string& path, const std::string& process_name) const {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", process_name}}}});
  for (const TraceSpan& s : spans_) {
    events.push_back({{"name", s.name},
                      {"cat", s.category},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", s.start_us},
                      {"dur", s.dur_us},
                      {"args", {{"self_us", s.self_us()}}}});
  }
  nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  absl::Status st = harness::WriteFileAtomically(path, harness::DumpJson(doc) + "\n");
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat("--profile_out: ", st.message()));
  return absl::OkStatus();
}

}  // namespace macro
