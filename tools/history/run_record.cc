// Benchmark JSON to history rows (run_record.h).
#include "tools/history/run_record.h"

#include <cctype>
#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/json_text.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_run.h"
#include "tools/history/rfc3339.h"

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

// Google Benchmark's bare non-finite tokens, as harness::QuoteNonFiniteTokens quotes them.
bool IsNonFiniteToken(const nlohmann::json& v) {
  return v.is_string() && (v == "NaN" || v == "Infinity" || v == "-Infinity");
}

bool IsHex(const std::string& s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A NaN or Infinity time refuses the run (naming it, where tools/gate's parser would call it "a
// string"); one of a repetition that errored is left out with it, so it reads as 0 here.
absl::StatusOr<nlohmann::json> CheckTimes(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) return j;
  nlohmann::json out = j;
  for (size_t i = 0; i < out["benchmarks"].size(); ++i) {
    nlohmann::json& e = out["benchmarks"][i];
    if (!e.is_object() || (e.contains("run_type") && e["run_type"] != "iteration")) continue;
    for (const char* field : {"real_time", "cpu_time"}) {
      if (!e.contains(field) || !IsNonFiniteToken(e[field])) continue;
      // ValueOr, not value(): value() throws on a field of another kind (found by fuzzing).
      if (gate::ValueOr(e, "error_occurred", false)) {
        e[field] = 0;
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "'", source, "': benchmarks[", i, "] (", gate::ValueOr(e, "name", std::string("?")), ") repetition ",
          gate::ValueOr(e, "repetition_index", 0), ": ", field, " is ", e[field].get<std::string>(),
          ", not a time: a time must be a finite positive number; the run is refused"));
    }
  }
  return out;
}

// The run's commit: --commit, else its run context's build.commit; normalised.
absl::Status SetCommit(RunRecord& r, const absl::StatusOr<nlohmann::json>& rc, const std::string& source,
                       const RecordOptions& o) {
  std::string commit = o.commit, from = "--commit";
  if (commit.empty() && rc.ok() && rc->contains("build")) {
    commit = gate::ValueOr<std::string>((*rc)["build"], "commit", "");
    from = "its run context's build.commit";
  }
  if (commit.empty() || commit == "unknown") {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': its run context names no commit ('",
                                                   commit, "'); give --commit=SHA"));
  }
  absl::StatusOr<std::string> full = NormalizeCommit(commit, from, o.resolve_commit);
  if (!full.ok()) return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", full.status().message()));
  r.commit = *full;
  return absl::OkStatus();
}

// The run's date: --date, else its run context's date; in UTC.
absl::Status SetDate(RunRecord& r, const absl::StatusOr<nlohmann::json>& rc, const gate::Run& run,
                     const std::string& source, const RecordOptions& o) {
  std::string date = o.date, from = "--date=";
  if (date.empty() && rc.ok()) date = gate::ValueOr<std::string>(*rc, "date", "");
  if (date.empty()) date = gate::ValueOr<std::string>(run.context, "date", "");
  if (o.date.empty()) from = "its date ";
  if (date.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", source, "': no date in its context; give --date=DATE (", kDatesAllowed, ")"));
  }
  absl::StatusOr<std::string> utc = NormalizeDate(date);
  if (!utc.ok()) return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", from, utc.status().message()));
  r.date = *utc;
  return absl::OkStatus();
}

// One repetition's values: times in seconds, counters as written; non-finite counters dropped.
absl::Status AddRepetition(const nlohmann::json& e, const std::string& name, int rep, const std::string& source,
                           ParsedRun& out) {
  absl::StatusOr<double> unit = UnitSeconds(e, source);
  if (!unit.ok()) return unit.status();
  for (const auto& [k, v] : e.items()) {
    const bool time = k == "real_time" || k == "cpu_time";
    if (!time && EntryKeys().count(k)) continue;
    if (!time && IsNonFiniteToken(v)) {
      out.dropped.push_back(absl::StrCat(name, " repetition ", rep, ": counter ", k, " is ", v.get<std::string>()));
      continue;
    }
    if (!v.is_number()) continue;
    const double x = v.get<double>() * (time ? *unit : 1.0);
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", name, " repetition ", rep, ": ", k,
                                                     " is not finite"));
    }
    out.record.rows.push_back({name, k, rep, x});
  }
  return absl::OkStatus();
}

}  // namespace

bool IsFullCommit(const std::string& s) {
  const std::string base = absl::EndsWith(s, "+dirty") ? s.substr(0, s.size() - 6) : s;
  return (base.size() == 40 || base.size() == 64) && IsHex(base);
}

absl::StatusOr<std::string> NormalizeCommit(const std::string& commit, const std::string& from,
                                            const CommitResolver& resolve) {
  if (IsFullCommit(commit)) return Lower(commit);
  const bool dirty = absl::EndsWith(commit, "+dirty");
  const std::string rev = dirty ? commit.substr(0, commit.size() - 6) : commit;
  const std::string what = absl::StrCat(from, " '", commit, "' is not a full commit id (40 hex digits)");
  if (!resolve) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " and no git repository is at hand to resolve it: give the full id (git rev-parse ", rev, ")"));
  }
  absl::StatusOr<std::string> full = resolve(rev);
  if (!full.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " and does not resolve to a commit: ", full.status().message(),
                                                   "; give the full id, or --repo=CHECKOUT where it resolves"));
  }
  if (!IsFullCommit(*full) || absl::EndsWith(*full, "+dirty")) {
    return absl::InvalidArgumentError(absl::StrCat(what, ", and it resolved to '", *full, "', not a full id either"));
  }
  return absl::StrCat(Lower(*full), dirty ? "+dirty" : "");
}

absl::StatusOr<ParsedRun> ParseRunJson(const nlohmann::json& input, const std::string& source,
                                       const RecordOptions& o) {
  absl::StatusOr<nlohmann::json> j = CheckTimes(input, source);
  if (!j.ok()) return j.status();
  absl::StatusOr<gate::Run> run = gate::ParseRun(*j, source);
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
  if (absl::Status st = SetCommit(r, rc, source, o); !st.ok()) return st;
  if (absl::Status st = SetDate(r, rc, *run, source, o); !st.ok()) return st;
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
      if (absl::Status st = AddRepetition(e, name, rep, source, out); !st.ok()) return st;
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
