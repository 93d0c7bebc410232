// Traffic kinds and the roof an op is held to (memory_roofs.h).
#include "accounting/memory_roofs.h"

#include "absl/strings/str_format.h"

namespace accounting {

std::string_view TrafficKindName(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kRead:
      return "read";
    case TrafficKind::kWriteNt:
      return "write_nt";
    case TrafficKind::kCopy:
      return "copy";
    case TrafficKind::kTriad:
      return "triad";
    case TrafficKind::kInPlace:
      return "in_place";
  }
  return "copy";
}

std::optional<TrafficKind> ParseTrafficKind(std::string_view name) {
  for (TrafficKind k : kAllTrafficKinds) {
    if (TrafficKindName(k) == name) return k;
  }
  return std::nullopt;
}

std::string AllowedTrafficKindNames() {
  std::string out;
  for (TrafficKind k : kAllTrafficKinds) {
    if (!out.empty()) out += ", ";
    out += TrafficKindName(k);
  }
  return out;
}

double MovedPerCounted(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kCopy:
      return 12.0 / 8.0;
    case TrafficKind::kTriad:
      return 16.0 / 12.0;
    default:
      return 1.0;
  }
}

double KernelCountedBytesPerElement(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kRead:
    case TrafficKind::kWriteNt:
      return 4;
    case TrafficKind::kCopy:
      return 8;
    case TrafficKind::kTriad:
      return 12;
    case TrafficKind::kInPlace:
      return 20;
  }
  return 8;
}

TrafficKind KindOf(const OpTraffic& t) {
  if (t.write_bytes <= 0) return TrafficKind::kRead;
  if (t.streaming_stores) return t.read_bytes <= 0 ? TrafficKind::kWriteNt : TrafficKind::kRead;
  if (t.in_place) return TrafficKind::kInPlace;
  return t.read_bytes <= 1.5 * t.write_bytes ? TrafficKind::kCopy : TrafficKind::kTriad;
}

std::string HeldRoof::Label() const {
  return absl::StrFormat("%s %s %.1f GB/s", TrafficKindName(kind), level, bytes_per_s / 1e9);
}

std::optional<HeldRoof> RoofForTraffic(const MemoryRoofs& roofs, const OpTraffic& traffic) {
  const TrafficKind kind = KindOf(traffic);
  const std::string name(TrafficKindName(kind));
  if (traffic.working_set_bytes > 0) {
    for (const CacheLevel& level : roofs.cache_levels) {
      if (traffic.working_set_bytes > level.capacity_bytes) continue;
      auto it = level.bytes_per_s.find(name);
      if (it == level.bytes_per_s.end() || !(it->second > 0)) continue;
      HeldRoof r;
      r.kind = kind;
      r.level = level.name;
      r.bytes_per_s = it->second;
      return r;
    }
  }
  auto it = roofs.dram_bytes_per_s.find(name);
  if (it == roofs.dram_bytes_per_s.end() || !(it->second > 0)) return std::nullopt;
  HeldRoof r;
  r.kind = kind;
  r.level = "DRAM";
  r.bytes_per_s = it->second;
  return r;
}

}  // namespace accounting
