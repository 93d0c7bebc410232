// Baseline merge and atomic update; see gate_baseline.h.
#include "tools/gate/gate_baseline.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/gate/gate_compare.h"
#include "tools/gate/gate_io.h"

namespace gate {
namespace {

std::string ContextString(const nlohmann::json& ctx, const char* mlbench_field, const char* gb_field) {
  if (ctx.contains("mlbench") && ctx["mlbench"].is_object() && ctx["mlbench"].contains(mlbench_field) &&
      ctx["mlbench"][mlbench_field].is_string()) {
    return ctx["mlbench"][mlbench_field].get<std::string>();
  }
  if (gb_field != nullptr && ctx.contains(gb_field) && ctx[gb_field].is_string()) {
    return ctx[gb_field].get<std::string>();
  }
  return "unknown";
}

absl::Status MakeDirs(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  std::string partial;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      partial = dir.substr(0, i);
      if (!partial.empty() && mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
        return absl::PermissionDeniedError(
            absl::StrCat("cannot create folder '", partial, "': ", std::strerror(errno)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateBaseline(const nlohmann::json& baseline, const MachineKey& key,
                              const std::string& path) {
  const std::string format = ValueOr<std::string>(baseline, "format", "");
  if (format == "mlbench-gate-baseline/1") {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' was recorded with the old machine key (CPU model name only), which cannot tell "
                     "CPU generations apart; it is never compared. Record a new baseline with --update"));
  }
  if (format != kBaselineFormat) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not a baseline file: \"format\" is not \"", kBaselineFormat, "\""));
  }
  absl::StatusOr<MachineKey> file_key = KeyFromJson(baseline.value("machine", nlohmann::json()));
  if (!file_key.ok())
    return absl::InvalidArgumentError(absl::StrCat("'", path, "': ", file_key.status().message()));
  if (!(*file_key == key)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' holds the baseline of another machine; it is refused, not compared. The fields "
                     "that differ:\n  ",
                     absl::StrJoin(KeyDifferences(*file_key, key), "\n  ")));
  }
  // Its entries as a run's (MergeBaseline reads them; an entry that is not an object with a
  // string name would make it throw).
  if (absl::StatusOr<Run> run = ParseRun(baseline, path); !run.ok()) return run.status();
  return absl::OkStatus();
}

std::vector<std::string> OtherMachinesBaselines(const std::string& dir, const std::string& suite,
                                                const MachineKey& key) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (absl::EndsWith(n, absl::StrCat("__", SanitizeFileComponent(suite), ".json"))) names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    absl::StatusOr<nlohmann::json> j = ReadJsonFile(absl::StrCat(dir, "/", n));
    if (!j.ok()) {
      out.push_back(absl::StrCat(n, ": unreadable (", j.status().message(), ")"));
      continue;
    }
    // Any file of the suite's name may be here: value() of a non-object would throw.
    absl::StatusOr<MachineKey> k =
        KeyFromJson(j->is_object() ? j->value("machine", nlohmann::json()) : nlohmann::json());
    if (!k.ok()) {
      out.push_back(absl::StrCat(n, ": ", k.status().message()));
      continue;
    }
    out.push_back(absl::StrCat(n, ": ", absl::StrJoin(KeyDifferences(*k, key), "; ")));
  }
  return out;
}

nlohmann::json MergeBaseline(const nlohmann::json* existing, const Run& current, const MachineKey& key,
                             const std::string& suite, bool require_verified, const std::string& date,
                             UpdateStats* stats, int pool_runs) {
  const std::string commit = ContextString(current.context, "commit", nullptr);
  // Each entry is tagged with when its run was measured (tools/bench's context date), which
  // also tells the recordings of a pooled case apart; the update's own date goes to history.
  std::string measured = ContextString(current.context, "date", nullptr);
  if (measured == "unknown") measured = date;
  std::set<std::string> replaced;
  nlohmann::json entries = nlohmann::json::array();
  UpdateStats st;
  for (const std::string& name : current.order) {
    const auto& cur = current.cases.at(name);
    if (UnverifiedReason(cur, require_verified)) {
      ++st.skipped_unverified;
      continue;
    }
    replaced.insert(name);
    ++st.updated_cases;
    std::vector<nlohmann::json> pooled;
    const nlohmann::json recorded = {{"commit", commit}, {"date", measured}};
    // The current run's entries, tagged with this recording: a fresh run's carry no tag. A
    // --current that is itself a baseline carries its recordings' tags (some entries may have
    // none, recorded before tags existed): they are kept as they are, since its recordings'
    // repetitions may share indices, and one tag for all would make them duplicates.
    bool tagged = false;
    for (const nlohmann::json& e : cur) tagged = tagged || e.contains("mlbench_recorded");
    std::vector<nlohmann::json> current_entries;
    std::set<std::string> current_recordings;
    for (nlohmann::json e : cur) {
      if (!tagged) e["mlbench_recorded"] = recorded;
      current_recordings.insert(e.value("mlbench_recorded", nlohmann::json()).dump());
      current_entries.push_back(std::move(e));
    }
    if (pool_runs > 1 && existing != nullptr) {
      for (const nlohmann::json& e : existing->value("benchmarks", nlohmann::json::array())) {
        // A recording the current run holds again replaces its earlier copy: pooled twice, its
        // repetitions would count as more samples (and ParseRun refuses the duplicates).
        if (e.value("name", "") == name &&
            !current_recordings.count(e.value("mlbench_recorded", nlohmann::json()).dump())) {
          pooled.push_back(e);
        }
      }
    }
    for (nlohmann::json& e : current_entries) pooled.push_back(std::move(e));
    // Keep the pool_runs most recent recordings (in file order, oldest first).
    std::vector<std::string> recordings;
    for (const nlohmann::json& e : pooled) {
      std::string r = e.value("mlbench_recorded", nlohmann::json::object()).dump();
      if (std::find(recordings.begin(), recordings.end(), r) == recordings.end()) recordings.push_back(r);
    }
    const size_t keep = static_cast<size_t>(std::max(1, pool_runs));
    std::set<std::string> dropped;
    for (size_t i = 0; i + keep < recordings.size(); ++i) dropped.insert(recordings[i]);
    st.max_recordings = std::max(st.max_recordings, static_cast<int>(recordings.size() - dropped.size()));
    for (nlohmann::json& e : pooled) {
      if (!dropped.count(e.value("mlbench_recorded", nlohmann::json::object()).dump())) {
        entries.push_back(std::move(e));
      }
    }
  }
  nlohmann::json history = nlohmann::json::array();
  if (existing != nullptr) {
    std::set<std::string> kept;
    for (const nlohmann::json& e : existing->value("benchmarks", nlohmann::json::array())) {
      std::string name = e.value("name", "");
      if (name.empty() || replaced.count(name)) continue;
      kept.insert(name);
      entries.push_back(e);
    }
    st.kept_cases = static_cast<int>(kept.size());
    if (existing->contains("history") && (*existing)["history"].is_array()) history = (*existing)["history"];
  }
  history.push_back({{"commit", commit}, {"date", date}, {"updated_cases", st.updated_cases}});
  while (history.size() > 50) history.erase(history.begin());

  nlohmann::json doc;
  doc["format"] = kBaselineFormat;
  doc["key"] = key.Describe();
  doc["suite"] = suite;
  doc["machine"] = key.ToJson();
  doc["provenance"] = {{"commit", commit},
                       {"date", date},
                       {"host_name", ContextString(current.context, "host_name", "host_name")},
                       {"build_type", ContextString(current.context, "build_type", nullptr)},
                       {"source", current.source},
                       {"updated_cases", st.updated_cases},
                       {"kept_cases", st.kept_cases}};
  doc["history"] = history;
  doc["context"] = current.context;
  doc["benchmarks"] = entries;
  if (stats != nullptr) *stats = st;
  return doc;
}

absl::Status MakeBaselineFolder(const std::string& dir) { return MakeDirs(dir); }

absl::StatusOr<UpdateStats> UpdateBaselineFile(const std::string& path, const Run& current,
                                               const MachineKey& key, const std::string& suite,
                                               bool require_verified, const std::string& date,
                                               int pool_runs) {
  nlohmann::json existing;
  bool have_existing = false;
  absl::StatusOr<nlohmann::json> read = ReadJsonFile(path);
  if (read.ok()) {
    if (absl::Status s = ValidateBaseline(*read, key, path); !s.ok()) return s;
    existing = *std::move(read);
    have_existing = true;
  } else if (!absl::IsNotFound(read.status())) {
    return read.status();  // malformed: never overwrite what we cannot read
  }
  UpdateStats st;
  nlohmann::json doc = MergeBaseline(have_existing ? &existing : nullptr, current, key, suite,
                                     require_verified, date, &st, pool_runs);
  if (size_t slash = path.rfind('/'); slash != std::string::npos) {
    if (absl::Status s = MakeDirs(path.substr(0, slash)); !s.ok()) return s;
  }
  if (absl::Status s = WriteFileAtomically(path, doc.dump(1) + "\n"); !s.ok()) return s;
  return st;
}

}  // namespace gate
