// Measured ceilings JSON: read, write (temp file + rename), and turn into a Peak.
#include "accounting/ceilings.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "accounting/plausible.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "harness/json_doc.h"
#include "nlohmann/json.hpp"
#include "sysinfo/cpu_info.h"

namespace accounting {
namespace {

absl::Status CheckFigure(const std::string& what, double v) {
  if (std::isfinite(v) && v >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, "=", v, " is invalid: must be finite and >= 0"));
}

// A GEMM cannot run faster than the peak of its dtype (bf16 when its key names it, else fp32):
// a rate more than kGemmOverPeakTolerance above the file's own figure is a broken file (a
// hand-edited rate, or two machines' figures mixed), refused rather than printed as "4970407% of
// peak". No figure for the dtype: nothing to hold the rate to.
absl::Status CheckGemmUnderItsPeak(const Ceilings& c, const std::string& key, double value,
                                   const std::string& where) {
  const char* dtype = absl::StrContains(key, "/bf16/") ? "bf16" : "fp32";
  auto peak = c.peak_flops.find(dtype);
  if (peak == c.peak_flops.end() || !(peak->second > 0)) return absl::OkStatus();
  if (value <= peak->second * (1 + kGemmOverPeakTolerance)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: gemm_flops_per_s.%s = %.4g FLOP/s is above the file's own %s peak, peak_flops.%s = %.4g FLOP/s "
      "(%.0f%% of it; a GEMM runs at most at the peak, allowed up to %.0f%% for a busy machine's noise): "
      "measure the file again with `bazel run //micro:ceilings`",
      where, key, value, dtype, dtype, peak->second, 100 * value / peak->second,
      100 * (1 + kGemmOverPeakTolerance)));
}

// Every kind key a traffic kind's name, every figure a physical bandwidth, every spread in [0, 1],
// the cache levels named, with capacities growing.
absl::Status ValidateMemoryRoofs(const MemoryRoofs& m, const std::string& where) {
  auto check_kinds = [&](const std::map<std::string, double>& figures, const std::string& what,
                         bool bandwidth) -> absl::Status {
    for (const auto& [key, value] : figures) {
      if (!ParseTrafficKind(key)) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", what, " key '", key,
                                                       "' is not a traffic kind (allowed: ",
                                                       AllowedTrafficKindNames(), ")"));
      }
      const std::string name = absl::StrCat(where, ": ", what, ".", key);
      if (auto st = CheckFigure(name, value); !st.ok()) return st;
      if (bandwidth && value > 0) {
        if (auto st = CheckPlausibleBandwidth(name, value); !st.ok()) return st;
      }
      if (!bandwidth && value > 1) {
        return absl::InvalidArgumentError(absl::StrCat(name, "=", value, " is invalid: a spread in [0, 1]"));
      }
    }
    return absl::OkStatus();
  };
  if (auto st = check_kinds(m.dram_bytes_per_s, "memory_roofs_bytes_per_s", true); !st.ok()) return st;
  if (auto st = check_kinds(m.dram_spread, "memory_roofs_spread", false); !st.ok()) return st;
  double last = 0;
  for (size_t i = 0; i < m.cache_levels.size(); ++i) {
    const CacheLevel& level = m.cache_levels[i];
    const std::string name = absl::StrCat("cache_levels[", i, "]");
    if (level.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", name, " has no level name"));
    }
    if (!std::isfinite(level.capacity_bytes) || level.capacity_bytes <= last) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", name, ".capacity_bytes=", level.capacity_bytes,
                                                     " is invalid: finite and above the level before (", last,
                                                     ")"));
    }
    last = level.capacity_bytes;
    if (auto st = check_kinds(level.bytes_per_s, absl::StrCat(name, ".bytes_per_s"), true); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status Validate(const Ceilings& c, const std::string& where) {
  for (const auto& [key, value] : c.peak_flops) {
    if (!ParseDtype(key).ok() || std::string(DtypeName(*ParseDtype(key))) != key) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": peak_flops key '", key, "' is not a dtype name (allowed: ", AllowedDtypeNames(), ")"));
    }
    if (auto st = CheckFigure(absl::StrCat(where, ": peak_flops.", key), value); !st.ok()) return st;
    // 0: no figure for that dtype (MeasuredPeak says so); any other must be a physical one.
    if (value > 0) {
      if (auto st = CheckPlausibleFlops(absl::StrCat(where, ": peak_flops.", key), value); !st.ok()) return st;
    }
  }
  for (const auto& [key, value] : c.gemm_flops_per_s) {
    if (auto st = CheckFigure(absl::StrCat(where, ": gemm_flops_per_s.", key), value); !st.ok()) return st;
    // A small GEMM may run far below a peak, never above the band's top.
    if (value > kMaxPlausibleFlopsPerSecond) {
      return CheckPlausibleFlops(absl::StrCat(where, ": gemm_flops_per_s.", key), value);
    }
    if (auto st = CheckGemmUnderItsPeak(c, key, value, where); !st.ok()) return st;
  }
  if (auto st = CheckFigure(absl::StrCat(where, ": triad_bytes_per_s"), c.triad_bytes_per_s); !st.ok()) return st;
  if (c.triad_bytes_per_s > 0) {
    if (auto st = CheckPlausibleBandwidth(absl::StrCat(where, ": triad_bytes_per_s"), c.triad_bytes_per_s);
        !st.ok()) {
      return st;
    }
  }
  if (c.stream_array_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": stream_array_bytes=", c.stream_array_bytes, " is invalid: must be >= 0"));
  }
  if (auto st = CheckFigure(absl::StrCat(where, ": bandwidth_bytes_per_s"), c.bandwidth_bytes_per_s); !st.ok())
    return st;
  if (c.bandwidth_bytes_per_s > 0) {
    if (auto st = CheckPlausibleBandwidth(absl::StrCat(where, ": bandwidth_bytes_per_s"), c.bandwidth_bytes_per_s);
        !st.ok()) {
      return st;
    }
  }
  return ValidateMemoryRoofs(c.memory, where);
}

// The object `key` of the ceilings file `j` (when present), a number per name, into `out`.
absl::Status ReadFigures(const nlohmann::json& j, const char* key, const std::string& path,
                         std::map<std::string, double>* out) {
  if (!j.contains(key)) return absl::OkStatus();
  if (!j[key].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ceilings file '", path, "': '", key, "' must be an object"));
  }
  for (auto it = j[key].begin(); it != j[key].end(); ++it) {
    if (!it.value().is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': ", key, ".", it.key(), " must be a number"));
    }
    (*out)[it.key()] = it.value().get<double>();
  }
  return absl::OkStatus();
}

// memory_roofs_bytes_per_s, memory_roofs_spread and cache_levels of the file `j`, where present.
absl::Status ReadMemoryRoofs(const nlohmann::json& j, const std::string& path, MemoryRoofs* out) {
  if (auto st = ReadFigures(j, "memory_roofs_bytes_per_s", path, &out->dram_bytes_per_s); !st.ok()) return st;
  if (auto st = ReadFigures(j, "memory_roofs_spread", path, &out->dram_spread); !st.ok()) return st;
  if (!j.contains("cache_levels")) return absl::OkStatus();
  const auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("ceilings file '", path, "': ", what));
  };
  if (!j["cache_levels"].is_array()) return bad("'cache_levels' must be an array");
  for (size_t i = 0; i < j["cache_levels"].size(); ++i) {
    const nlohmann::json& e = j["cache_levels"][i];
    const std::string at = absl::StrCat("cache_levels[", i, "]");
    if (!e.is_object()) return bad(absl::StrCat(at, " must be an object"));
    if (!e.contains("level") || !e["level"].is_string()) return bad(absl::StrCat(at, ".level must be a string"));
    if (!e.contains("capacity_bytes") || !e["capacity_bytes"].is_number()) {
      return bad(absl::StrCat(at, ".capacity_bytes must be a number"));
    }
    CacheLevel level;
    level.name = e["level"].get<std::string>();
    level.capacity_bytes = e["capacity_bytes"].get<double>();
    if (auto st = ReadFigures(e, "bytes_per_s", absl::StrCat(path, "' ", at, " '"), &level.bytes_per_s); !st.ok()) {
      return st;
    }
    out->cache_levels.push_back(std::move(level));
  }
  return absl::OkStatus();
}

}  // namespace

bool StreamFigureIsCacheResident(int64_t bytes_per_array, int64_t llc_bytes) {
  const int64_t floor = llc_bytes > 0 ? 4 * llc_bytes : int64_t{64} << 20;
  return bytes_per_array < floor;
}

absl::Status WriteCeilings(const std::string& path, const Ceilings& c) {
  if (auto st = Validate(c, path); !st.ok()) return st;
  nlohmann::json j;
  j["machine"] = c.machine;
  j["peak_flops"] = nlohmann::json::object();
  for (const auto& [k, v] : c.peak_flops) j["peak_flops"][k] = v;
  j["bandwidth_bytes_per_s"] = c.bandwidth_bytes_per_s;
  if (c.stream_array_bytes > 0) j["stream_array_bytes"] = c.stream_array_bytes;
  if (c.triad_bytes_per_s > 0) j["triad_bytes_per_s"] = c.triad_bytes_per_s;
  j["bandwidth_cache_resident"] = c.bandwidth_cache_resident;
  j["method"] = c.method;
  j["date"] = c.date;
  if (!c.gemm_flops_per_s.empty()) {
    j["gemm_flops_per_s"] = nlohmann::json::object();
    for (const auto& [k, v] : c.gemm_flops_per_s) j["gemm_flops_per_s"][k] = v;
  }
  if (!c.memory.dram_bytes_per_s.empty()) {
    j["memory_roofs_bytes_per_s"] = nlohmann::json(c.memory.dram_bytes_per_s);
    j["memory_roofs_spread"] = nlohmann::json(c.memory.dram_spread);
  }
  if (!c.memory.cache_levels.empty()) {
    j["cache_levels"] = nlohmann::json::array();
    for (const CacheLevel& level : c.memory.cache_levels) {
      j["cache_levels"].push_back({{"level", level.name},
                                   {"capacity_bytes", level.capacity_bytes},
                                   {"bytes_per_s", nlohmann::json(level.bytes_per_s)}});
    }
  }

  absl::Status st = harness::WriteFileAtomically(path, harness::DumpJson(j, 2) + "\n");
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat("cannot write ceilings: ", st.message()));
  return absl::OkStatus();
}

absl::StatusOr<Ceilings> ReadCeilings(const std::string& path) {
  absl::StatusOr<std::string> text = harness::ReadFileAtMost(path, harness::kMaxJsonFileBytes, "ceilings file");
  if (!text.ok() && (absl::IsNotFound(text.status()) || absl::IsFailedPrecondition(text.status()))) {
    return absl::NotFoundError(absl::StrCat(text.status().message(),
                                            " (write one with `bazel run //micro:ceilings`)"));
  }
  if (!text.ok()) return text.status();
  // Errors give the byte offset, line and column, as the gate's reader does.
  absl::StatusOr<nlohmann::json> parsed = harness::ParseJsonOrError(*text, absl::StrCat("ceilings file '", path, "'"));
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("ceilings file '", path, "' is not a JSON object (it holds a ",
                                                   j.type_name(), ")"));
  }
  Ceilings c;
  auto get_string = [&](const char* key, std::string* out) -> absl::Status {
    if (!j.contains(key)) return absl::OkStatus();
    if (!j[key].is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': '", key, "' must be a string"));
    }
    *out = j[key].get<std::string>();
    return absl::OkStatus();
  };
  for (auto [key, out] : {std::pair<const char*, std::string*>{"machine", &c.machine},
                          {"method", &c.method},
                          {"date", &c.date}}) {
    if (auto st = get_string(key, out); !st.ok()) return st;
  }
  if (auto st = ReadFigures(j, "peak_flops", path, &c.peak_flops); !st.ok()) return st;
  if (auto st = ReadFigures(j, "gemm_flops_per_s", path, &c.gemm_flops_per_s); !st.ok()) return st;
  if (j.contains("bandwidth_bytes_per_s")) {
    if (!j["bandwidth_bytes_per_s"].is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': 'bandwidth_bytes_per_s' must be a number"));
    }
    c.bandwidth_bytes_per_s = j["bandwidth_bytes_per_s"].get<double>();
  }
  if (j.contains("triad_bytes_per_s")) {
    if (!j["triad_bytes_per_s"].is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': 'triad_bytes_per_s' must be a number"));
    }
    c.triad_bytes_per_s = j["triad_bytes_per_s"].get<double>();
  }
  if (j.contains("stream_array_bytes")) {
    if (!j["stream_array_bytes"].is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': 'stream_array_bytes' must be an integer"));
    }
    c.stream_array_bytes = j["stream_array_bytes"].get<int64_t>();
  }
  // Files written before the label existed: judged by the array size where they give it, else
  // taken as a DRAM figure, as they always were.
  if (!j.contains("bandwidth_cache_resident") && c.stream_array_bytes > 0) {
    c.bandwidth_cache_resident =
        StreamFigureIsCacheResident(c.stream_array_bytes, sysinfo::ReadCpuInfo().l3_bytes);
  }
  if (j.contains("bandwidth_cache_resident")) {
    if (!j["bandwidth_cache_resident"].is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ceilings file '", path, "': 'bandwidth_cache_resident' must be true or false"));
    }
    c.bandwidth_cache_resident = j["bandwidth_cache_resident"].get<bool>();
  }
  if (auto st = ReadMemoryRoofs(j, path, &c.memory); !st.ok()) return st;
  if (auto st = Validate(c, absl::StrCat("ceilings file '", path, "'")); !st.ok()) return st;
  return c;
}

absl::StatusOr<Peak> MeasuredPeak(const Ceilings& c, Dtype dtype, const std::string& path_for_source) {
  auto it = c.peak_flops.find(DtypeName(dtype));
  if (it == c.peak_flops.end() || !(it->second > 0)) {
    std::vector<std::string> have;
    for (const auto& [k, v] : c.peak_flops) {
      if (v > 0) have.push_back(k);
    }
    return absl::NotFoundError(
        absl::StrCat("ceilings file '", path_for_source, "' has no ", DtypeName(dtype),
                     " peak (it has: ", have.empty() ? "none" : absl::StrJoin(have, ", "),
                     "); measure it with `bazel run //micro:ceilings` or give --peak_flops"));
  }
  Peak p;
  p.flops_per_s = it->second;
  p.bytes_per_s = c.bandwidth_bytes_per_s;
  p.bandwidth_cache_resident = c.bandwidth_cache_resident;
  p.memory = c.memory;
  p.source = absl::StrCat("measured: ", path_for_source, " (", c.machine, "; ", c.method, "; ", c.date, ")");
  return p;
}

}  // namespace accounting
