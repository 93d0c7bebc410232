// The memory roof of each case and the roofs the roofline draws (memory_roof.h).
#include "tools/report/memory_roof.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/report/family.h"
#include "tools/report/units.h"

namespace report {

using accounting::HeldRoof;
using accounting::TrafficKind;
using accounting::TrafficKindName;

std::string MemorySlope::Label() const {
  if (level_index < 0) return HeldRoof{kind, level, bytes_per_s}.Label();
  return absl::StrFormat("%s (%s) %.1f GB/s", level, TrafficKindName(kind), bytes_per_s / 1e9);
}

std::optional<accounting::OpTraffic> TrafficOf(const Case& c) {
  const auto read = c.Counter("traffic_read_bytes"), write = c.Counter("traffic_write_bytes");
  const auto in_place = c.Counter("traffic_in_place"), nt = c.Counter("traffic_streaming_stores");
  if (!read && !write && !in_place && !nt) return std::nullopt;
  accounting::OpTraffic t;
  t.read_bytes = read.value_or(0) > 0 ? *read : 0;
  t.write_bytes = write.value_or(0) > 0 ? *write : 0;
  t.in_place = in_place.value_or(0) >= 0.5;
  t.streaming_stores = nt.value_or(0) >= 0.5;
  const auto ws = c.Counter("working_set_bytes");
  t.working_set_bytes = ws.value_or(0) > 0 ? *ws : 0;
  if (!(t.bytes() > 0)) return std::nullopt;
  return t;
}

namespace {

constexpr char kKinds[] =
    "read; write_nt: non-temporal stores; copy, triad: plain stores, which read the line first; in_place: "
    "rewrites what it just read";

// The file's slopes: its DRAM roof per kind, then each cache level at its fastest kind.
std::vector<MemorySlope> FileSlopes(const accounting::MemoryRoofs& m) {
  std::vector<MemorySlope> slopes;
  for (TrafficKind k : accounting::kAllTrafficKinds) {
    auto it = m.dram_bytes_per_s.find(std::string(TrafficKindName(k)));
    if (it != m.dram_bytes_per_s.end() && it->second > 0) slopes.push_back({k, "DRAM", it->second, 0, -1});
  }
  for (size_t i = 0; i < m.cache_levels.size(); ++i) {
    const accounting::CacheLevel& level = m.cache_levels[i];
    MemorySlope best{TrafficKind::kRead, level.name, 0, level.capacity_bytes, static_cast<int>(i)};
    for (const auto& [name, bw] : level.bytes_per_s) {
      auto kind = accounting::ParseTrafficKind(name);
      if (kind && bw > best.bytes_per_s) best.kind = *kind, best.bytes_per_s = bw;
    }
    if (best.bytes_per_s > 0) slopes.push_back(best);
  }
  return slopes;
}

// Without a file: one slope per distinct (kind, roof_bytes/s) of the declaring cases; a kind
// held to several roofs is a problem (each binary measured its own).
void CounterSlopes(const RunData& data, MemoryRoofChoice* choice) {
  std::map<TrafficKind, std::set<double>> by_kind;
  for (const Case& c : data.cases) {
    if (!c.error.empty()) continue;
    auto t = TrafficOf(c);
    auto bw = c.Counter("roof_bytes/s");
    if (t && bw && *bw > 0) by_kind[accounting::KindOf(*t)].insert(*bw);
  }
  for (TrafficKind k : accounting::kAllTrafficKinds) {
    auto it = by_kind.find(k);
    if (it == by_kind.end()) continue;
    for (double bw : it->second) choice->slopes.push_back({k, "DRAM", bw, 0, -1});
    if (it->second.size() > 1) {
      choice->problems.push_back(
          absl::StrCat("the ", std::string(TrafficKindName(k)), " cases held themselves to ",
                       it->second.size(), " different roofs (roof_bytes/s ",
                       FormatSi(*it->second.begin(), "B/s"), " to ", FormatSi(*it->second.rbegin(), "B/s"),
                       "; each binary measured its own): each is drawn. Give every "
                       "binary the same --ceilings=FILE, or give it to the report, for one roof per kind"));
    }
  }
}

// A problem line for the declaring cases that have no roof of their kind (rule 3).
void NoteCasesWithoutRoof(const RunData& data, MemoryRoofChoice* choice) {
  std::vector<std::string> names;
  for (const Case& c : data.cases) {
    if (c.error.empty() && TrafficOf(c) && !MemoryRoofFor(*choice, c))
      names.push_back(StripRunSuffixes(c.name));
  }
  if (names.empty()) return;
  const size_t shown = std::min<size_t>(names.size(), 3);
  choice->problems.push_back(absl::StrCat(
      names.size(),
      " case(s) count their traffic but have no roof of their kind (no roof_bytes/s counter, "
      "and no --ceilings file of this machine with memory roofs for it): held to the single memory slope (",
      absl::StrJoin(names.begin(), names.begin() + shown, ", "),
      names.size() > shown ? absl::StrCat(" and ", names.size() - shown, " more") : "", ")"));
}

}  // namespace

MemoryRoofChoice ChooseMemoryRoofs(const RunData& data, const accounting::Ceilings* file,
                                   const std::string& path) {
  MemoryRoofChoice choice;
  if (file != nullptr && !file->memory.empty()) {
    choice.file = file->memory;
    choice.file_path = path;
    if (file->bandwidth_cache_resident && !choice.file.dram_bytes_per_s.empty()) {
      choice.file.dram_bytes_per_s.clear();
      choice.problems.push_back(
          absl::StrCat("the memory roofs per kind of '", path,
                       "' were measured on its cache-sized STREAM arrays "
                       "(ceilings --sizes=quick): not DRAM roofs, so only its cache levels are used"));
    }
  }
  if (!choice.file.empty()) {
    choice.slopes = FileSlopes(choice.file);
  } else {
    choice.file_path.clear();
    CounterSlopes(data, &choice);
  }
  NoteCasesWithoutRoof(data, &choice);
  if (choice.slopes.empty()) return choice;
  choice.summary =
      absl::StrCat("Memory roofs per traffic kind", choice.file_path.empty() ? "" : " and cache level",
                   ": a case that counts its traffic is held to its own kind's roof (", kKinds, ")",
                   choice.file_path.empty() ? " at DRAM" : ", at the smallest level holding its working set",
                   "; other cases to the single slope. From ",
                   choice.file_path.empty() ? "the cases' roof_bytes/s" : choice.file_path);
  return choice;
}

std::optional<HeldRoof> MemoryRoofFor(const MemoryRoofChoice& choice, const Case& c) {
  const std::optional<accounting::OpTraffic> traffic = TrafficOf(c);
  if (!traffic) return std::nullopt;
  if (!choice.file.empty()) {
    if (auto held = accounting::RoofForTraffic(choice.file, *traffic)) return held;
  }
  auto bw = c.Counter("roof_bytes/s");
  if (!bw || !(*bw > 0)) return std::nullopt;
  return HeldRoof{accounting::KindOf(*traffic), "DRAM", *bw};
}

}  // namespace report
