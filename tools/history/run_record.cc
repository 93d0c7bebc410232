// Benchmark JSON to history rows (run_record.h).
#include "tools/history/run_record.h"

#include <cctype>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "harness/json_text.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_run.h"

namespace history {
namespace {

// The keys Google Benchmark writes for every entry; any other number is a counter.
const std::set<std::string>& EntryKeys() {
  static const auto* k = new std::set<std::string>{
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
      "error_occurred", "error_message", "aggregate_name", "aggregate_unit"};
  return *k;
}

absl::StatusOr<double> UnitSeconds(const nlohmann::json& e, const std::string& source) {
  const std::string unit = gate::ValueOr<std::string>(e, "time_unit", "ns");
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", gate::ValueOr<std::string>(e, "name", "?"),
                                                 ": time_unit '", unit, "' is not one of ns, us, ms, s"));
}

bool Digits(const std::string& s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

}  // namespace

bool IsIso8601(const std::string& s) {
  if (!Digits(s, 0, 4) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2) || s[7] != '-' || !Digits(s, 8, 2)) {
    return false;
  }
  size_t i = 10;
  if (i == s.size()) return true;
  if (s[i] != 'T' || !Digits(s, i + 1, 2) || i + 3 >= s.size() || s[i + 3] != ':' || !Digits(s, i + 4, 2)) return false;
  i += 6;
  if (i < s.size() && s[i] == ':') {
    if (!Digits(s, i + 1, 2)) return false;
    i += 3;
    if (i < s.size() && s[i] == '.') {
      ++i;
      const size_t start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i == start) return false;
    }
  }
  if (i == s.size()) return true;
  if (s[i] == 'Z') return i + 1 == s.size();
  if (s[i] == '+' || s[i] == '-') return i + 6 == s.size() && Digits(s, i + 1, 2) && s[i + 3] == ':' && Digits(s, i + 4, 2);
  return false;
}

absl::StatusOr<ParsedRun> ParseRunJson(const nlohmann::json& j, const std::string& source, const RecordOptions& o) {
  absl::StatusOr<gate::Run> run = gate::ParseRun(j, source);
  if (!run.ok()) return run.status();
  absl::StatusOr<gate::MachineKey> key = gate::KeyFromContext(run->context, source);
  if (!key.ok()) return key.status();
  absl::StatusOr<nlohmann::json> rc = gate::FindRunContext(run->context);
  ParsedRun out;
  RunRecord& r = out.record;
  r.machine_hash = key->Hash();
  r.machine_description = key->Describe();
  r.machine_fields_json = key->ToJson().dump();
  r.source = source;
  r.context_json = run->context.dump();
  r.commit = o.commit;
  if (r.commit.empty() && rc.ok() && rc->contains("build")) {
    r.commit = gate::ValueOr<std::string>((*rc)["build"], "commit", "");
  }
  if (r.commit.empty() || r.commit == "unknown") {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': its run context names no commit ('",
                                                   r.commit, "'); give --commit=SHA"));
  }
  r.date = o.date;
  if (r.date.empty() && rc.ok()) r.date = gate::ValueOr<std::string>(*rc, "date", "");
  if (r.date.empty()) r.date = gate::ValueOr<std::string>(run->context, "date", "");
  if (r.date.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': no date in its context; give --date=ISO8601"));
  }
  if (!IsIso8601(r.date)) {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': date '", r.date,
                                                   "' is not ISO 8601 (e.g. 2026-11-30T12:00:00Z)"));
  }
  for (const std::string& name : run->order) {
    int ordinal = 0;
    for (const nlohmann::json& e : run->cases.at(name)) {
      const int rep = gate::ValueOr<int>(e, "repetition_index", ordinal++);
      const bool errored = gate::ValueOr<bool>(e, "error_occurred", false);
      const bool unverified = e.contains("verified") && e["verified"].is_number() && e["verified"].get<double>() < 1;
      const bool disturbed = e.contains("disturbed") && e["disturbed"].is_number() && e["disturbed"].get<double>() != 0;
      if (errored || unverified || disturbed) {
        ++out.left_out;
        continue;
      }
      absl::StatusOr<double> unit = UnitSeconds(e, source);
      if (!unit.ok()) return unit.status();
      for (const auto& [k, v] : e.items()) {
        if (!v.is_number()) continue;
        const bool time = k == "real_time" || k == "cpu_time";
        if (!time && EntryKeys().count(k)) continue;
        const double x = v.get<double>() * (time ? *unit : 1.0);
        if (!std::isfinite(x)) {
          return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", name, " repetition ", rep, ": ", k,
                                                         " is not finite"));
        }
        r.rows.push_back({name, k, rep, x});
      }
    }
  }
  if (r.rows.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': nothing to record (", out.left_out,
                                                   " repetitions errored, failed their check or were DISTURBED)"));
  }
  return out;
}

absl::StatusOr<ParsedRun> ParseRunText(const std::string& text, const std::string& source, const RecordOptions& o) {
  // Google Benchmark writes a non-finite counter as a bare NaN or Infinity, which is not JSON.
  absl::StatusOr<nlohmann::json> j = gate::ParseJson(harness::QuoteNonFiniteTokens(text), absl::StrCat("'", source, "'"));
  if (!j.ok()) return j.status();
  return ParseRunJson(*j, source, o);
}

absl::StatusOr<ParsedRun> ReadRunFile(const std::string& path, const RecordOptions& o) {
  absl::StatusOr<std::string> text = gate::ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseRunText(*text, path, o);
}

}  // namespace history
