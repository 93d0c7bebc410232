// Google Benchmark JSON -> RunData: entries grouped by case, medians, step series, breakdowns.
#include "tools/report/input_loader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/bounded_read.h"
#include "harness/json_text.h"
#include "harness/machine_key.h"
#include "nlohmann/json.hpp"
#include "tools/report/family.h"

namespace report {

using Json = nlohmann::ordered_json;

struct Entry {
  std::string name;  // run_name
  std::string file;
  std::string machine_key;  // its file's, for a sweep file's entry (InputFile::machine_key)
  bool aggregate = false;
  std::string aggregate_name;
  std::optional<double> seconds;
  std::vector<std::pair<std::string, double>> counters;
  std::string label;
  std::string error;
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Google Benchmark's own fields and ours that are not counters.
const std::set<std::string>& NonCounterKeys() {
  static const auto* k = new std::set<std::string>{
      "name",           "run_name",       "run_type",      "repetitions",  "repetition_index",
      "threads",        "iterations",     "real_time",     "cpu_time",     "time_unit",
      "label",          "error_occurred", "error_message", "family_index", "per_family_instance_index",
      "aggregate_name", "aggregate_unit", "big_o",         "rms",          "complexity",
      "step_times_s",   "mfu_breakdown"};
  return *k;
}

constexpr char kBreakdownPrefix[] = "mfu_breakdown/";

// A number, or the strings QuoteNonFiniteTokens writes, or null (NaN).
std::optional<double> NumberOf(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_null()) return kNaN;
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "NaN" || s == "-NaN") return kNaN;
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

double UnitSeconds(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1;
  return 0;
}

std::string FormatNumber(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.4g", v);
}

// One context value as text.
std::string Flatten(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return FormatNumber(v.get<double>());
  if (v.is_null()) return "";
  if (v.is_object()) {  // {"name": "OpenBLAS", "version": "0.3.21"} -> "name OpenBLAS, version 0.3.21"
    std::vector<std::string> parts;
    for (auto it = v.begin(); it != v.end(); ++it)
      parts.push_back(absl::StrCat(it.key(), " ", Flatten(it.value())));
    return absl::StrJoin(parts, ", ");
  }
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const Json& e : v) {
      // Google Benchmark's caches: {"type", "level", "size", "num_sharing"}.
      if (e.is_object() && e.contains("level") && e.contains("size")) {
        double size = e["size"].is_number() ? e["size"].get<double>() : 0;
        std::string sz = size >= (1 << 20) ? absl::StrCat(FormatNumber(size / (1 << 20)), " MiB")
                                           : absl::StrCat(FormatNumber(size / 1024), " KiB");
        parts.push_back(absl::StrCat(
            "L", Flatten(e["level"]), " ", e.value("type", ""), " ", sz,
            e.contains("num_sharing") ? absl::StrCat(" (shared by ", Flatten(e["num_sharing"]), ")") : ""));
      } else {
        parts.push_back(Flatten(e));
      }
    }
    return absl::StrJoin(parts, ", ");
  }
  return v.dump();
}

void AddContext(const std::string& key, const std::string& value, RunData* data) {
  for (auto& [k, v] : data->context) {
    if (k != key) continue;
    if (v != value && !absl::StrContains(v, value)) absl::StrAppend(&v, "; ", value);
    return;
  }
  data->context.push_back({key, value});
}

void AddContextObject(const Json& obj, const std::string& prefix, RunData* data) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string key = prefix + it.key();
    if (it.value().is_object()) {
      AddContextObject(it.value(), key + ".", data);
    } else {
      AddContext(key, Flatten(it.value()), data);
    }
  }
}

// Parts of a breakdown object; problems for bad values.
std::optional<MfuBreakdown> ReadBreakdown(const Json& obj, const std::string& where,
                                          std::vector<std::string>* problems) {
  if (!obj.is_object() || obj.empty()) {
    problems->push_back(absl::StrCat(where,
                                     ": mfu_breakdown must be a non-empty object of "
                                     "\"part\": percent (see tools/report/README.md)"));
    return std::nullopt;
  }
  MfuBreakdown b;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    auto v = NumberOf(it.value());
    if (!v || !std::isfinite(*v) || *v < 0) {
      problems->push_back(absl::StrCat(where, ": mfu_breakdown part '", it.key(), "' is ", it.value().dump(),
                                       "; a percent >= 0 is expected"));
      return std::nullopt;
    }
    b.parts.push_back({it.key(), *v});
  }
  return b;
}

void CheckBreakdownSum(const MfuBreakdown& b, const std::string& where, std::vector<std::string>* problems) {
  double sum = 0;
  for (const auto& [k, v] : b.parts) sum += v;
  if (std::fabs(sum - 100) > 1) {
    problems->push_back(absl::StrFormat(
        "%s: the MFU breakdown's parts add up to %.1f%%, not 100%%: it is drawn as given", where, sum));
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace


namespace {

// The run's "context" object, key by key; an MFU breakdown in it goes to data->breakdowns.
void ReadContext(const Json& ctx, const std::string& path, RunData* data) {
  for (auto it = ctx.begin(); it != ctx.end(); ++it) {
    if (it.key() == "mfu_breakdown") {
      Json parsed = it.value();
      if (parsed.is_string()) {
        try {
          parsed = Json::parse(parsed.get<std::string>());
        } catch (const Json::parse_error&) {
          data->problems.push_back(absl::StrCat(path, ": context mfu_breakdown is not JSON text"));
          continue;
        }
      }
      if (auto b = ReadBreakdown(parsed, absl::StrCat(path, " (context)"), &data->problems)) {
        b->file = path;
        CheckBreakdownSum(*b, absl::StrCat(path, " (context)"), &data->problems);
        data->breakdowns.push_back(std::move(*b));
      }
      continue;
    }
    if (it.key() == "mlbench_run_context" && it.value().is_string()) {
      // sysinfo/run_context.h: the whole run context as JSON text; shown key by key.
      Json parsed = Json::parse(it.value().get<std::string>(), nullptr, /*allow_exceptions=*/false);
      if (parsed.is_object()) {
        AddContextObject(parsed, "run_context.", data);
        continue;
      }
    }
    if (it.value().is_object()) {
      AddContextObject(it.value(), it.key() + ".", data);
    } else {
      AddContext(it.key(), Flatten(it.value()), data);
    }
  }
}

// The context's value of `key` as a string ("" when absent or not a string).
std::string ContextString(const Json& ctx, const char* key) {
  return ctx.contains(key) && ctx[key].is_string() ? ctx[key].get<std::string>() : "";
}

bool IsMachineKey(const std::string& s) {
  return s.size() == 8 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// One file's machine from its own context; a sweep file without a usable key gets its path as
// the key (its cases stay apart from other files') and a problem line.
InputFile ReadInputFile(const Json& ctx, const std::string& path, std::vector<std::string>* problems) {
  InputFile f;
  f.path = path;
  f.sweep = ctx.is_object() && ctx.contains("mlbench_sweep");
  if (!ctx.is_object()) return f;
  f.machine = ContextString(ctx, "mlbench_machine");
  const nlohmann::json rc =
      nlohmann::json::parse(ContextString(ctx, "mlbench_run_context"), nullptr, /*allow_exceptions=*/false);
  if (rc.is_object() && rc.contains("cpu") && rc["cpu"].is_object()) {
    f.cpu = rc["cpu"].value("model_name", "");
    f.isa = rc["cpu"].value("isa_level", "");
  }
  if (rc.is_object() && rc.contains("gpu") && rc["gpu"].is_object()) f.gpu = rc["gpu"].value("name", "");
  if (!f.sweep) return f;
  f.machine_key = ContextString(ctx, "mlbench_machine_key");
  if (IsMachineKey(f.machine_key)) return f;
  absl::StatusOr<harness::MachineId> id = harness::MachineIdFromRunContext(rc);
  if (id.ok()) {
    f.machine_key = id->hash;
    if (f.machine.empty()) f.machine = id->description;
    return f;
  }
  problems->push_back(absl::StrCat(path, ": no machine key (context mlbench_machine_key is '", f.machine_key,
                                   "', not 8 hex digits, and the run context gives none: ",
                                   id.status().message(), "); its sweep points are keyed by the file name"));
  f.machine_key = path;
  return f;
}

// The entry's name, kind, label, error and time (from a time-like aggregate only).
Entry ReadEntryFields(const Json& b, const std::string& path) {
  Entry e;
  e.file = path;
  e.name = b.contains("run_name") && b["run_name"].is_string() ? b["run_name"].get<std::string>()
                                                               : b["name"].get<std::string>();
  e.aggregate = b.value("run_type", "iteration") == "aggregate";
  e.aggregate_name = b.contains("aggregate_name") && b["aggregate_name"].is_string()
                         ? b["aggregate_name"].get<std::string>()
                         : "";
  if (b.contains("label") && b["label"].is_string()) e.label = b["label"].get<std::string>();
  if (b.value("error_occurred", false)) {
    e.error = b.contains("error_message") && b["error_message"].is_string()
                  ? b["error_message"].get<std::string>()
                  : "error (no message)";
  }
  const bool time_aggregate = e.aggregate_name.empty() || e.aggregate_name == "mean" ||
                              e.aggregate_name == "median";  // not stddev, cv
  if (b.contains("real_time") && time_aggregate) {
    auto t = NumberOf(b["real_time"]);
    const double unit = UnitSeconds(b.value("time_unit", "ns"));
    if (t && unit > 0) e.seconds = *t * unit;
  }
  return e;
}

// The entry's numeric counters into e->counters; those named mfu_breakdown_* into *breakdown.
void ReadEntryCounters(const Json& b, Entry* e, MfuBreakdown* breakdown) {
  for (auto it = b.begin(); it != b.end(); ++it) {
    const std::string& key = it.key();
    if (NonCounterKeys().count(key) || absl::StartsWith(key, "mlbench_")) continue;
    auto v = NumberOf(it.value());
    if (!v) continue;
    if (absl::StartsWith(key, kBreakdownPrefix)) {
      breakdown->parts.push_back({key.substr(sizeof(kBreakdownPrefix) - 1), *v});
      continue;
    }
    e->counters.push_back({key, *v});
  }
}

// "step_times_s": {"warmup": [...], "timed": [...]} into data->steps, or a problem.
void ReadStepTimes(const Json& st, const std::string& case_name, const std::string& where, RunData* data) {
  StepSeries s;
  s.case_name = case_name;
  bool ok = st.is_object();
  for (const char* part : {"warmup", "timed"}) {
    if (!ok || !st.contains(part)) continue;
    if (!st[part].is_array()) {
      ok = false;
      break;
    }
    for (const Json& x : st[part]) {
      auto v = NumberOf(x);
      (std::string(part) == "warmup" ? s.warmup_s : s.timed_s).push_back(v ? *v : kNaN);
    }
  }
  if (ok && !s.timed_s.empty()) {
    data->steps.push_back(std::move(s));
  } else {
    data->problems.push_back(
        absl::StrCat(where,
                     ": step_times_s is not {\"warmup\": [seconds...], \"timed\": [seconds...]} "
                     "with at least one timed step; no step chart for it"));
  }
}

// One entry of "benchmarks" (with a name); its breakdowns and step times go to *data.
Entry ReadEntry(const Json& b, const std::string& path, RunData* data) {
  Entry e = ReadEntryFields(b, path);
  MfuBreakdown counter_breakdown;
  ReadEntryCounters(b, &e, &counter_breakdown);
  const std::string where = absl::StrCat(path, " ", StripRunSuffixes(e.name));
  if (!counter_breakdown.parts.empty() && !e.aggregate) {
    counter_breakdown.case_name = e.name;
    counter_breakdown.file = path;
    CheckBreakdownSum(counter_breakdown, where, &data->problems);
    data->breakdowns.push_back(std::move(counter_breakdown));
  }
  if (b.contains("mfu_breakdown") && !e.aggregate) {
    if (auto mb = ReadBreakdown(b["mfu_breakdown"], where, &data->problems)) {
      mb->case_name = e.name;
      mb->file = path;
      CheckBreakdownSum(*mb, where, &data->problems);
      data->breakdowns.push_back(std::move(*mb));
    }
  }
  if (b.contains("step_times_s") && !e.aggregate) ReadStepTimes(b["step_times_s"], e.name, where, data);
  return e;
}

// The entries a case is made of: its repetitions, or else its median (or mean) aggregate.
std::vector<const Entry*> EntriesToUse(const std::vector<const Entry*>& all) {
  std::vector<const Entry*> use;
  for (const Entry* e : all) {
    if (!e->aggregate) use.push_back(e);
  }
  if (!use.empty()) return use;
  for (const char* agg : {"median", "mean"}) {
    for (const Entry* e : all) {
      if (e->aggregate_name == agg) use.push_back(e);
    }
    if (!use.empty()) break;
  }
  return use;
}

// One case from its entries: files, error, label, median time and median counters.
Case FoldCase(const std::string& name, const std::vector<const Entry*>& use, RunData* data) {
  Case c;
  c.name = name;
  c.family = FamilyOf(name);
  c.repetitions = static_cast<int>(use.size());
  std::vector<std::string> files;
  std::vector<double> times;
  std::map<std::string, std::vector<double>> values;
  for (const Entry* e : use) {
    if (std::find(files.begin(), files.end(), e->file) == files.end()) files.push_back(e->file);
    if (!e->error.empty()) c.error = e->error;
    if (!e->label.empty()) c.label = e->label;
    if (e->seconds && std::isfinite(*e->seconds) && e->error.empty()) times.push_back(*e->seconds);
    for (const auto& [k, v] : e->counters) values[k].push_back(v);
  }
  c.file = absl::StrJoin(files, ", ");
  if (!times.empty()) c.seconds = Median(times);
  for (const auto& [k, vs] : values) {
    std::vector<double> finite;
    for (double v : vs) {
      if (std::isfinite(v)) finite.push_back(v);
    }
    c.counters[k] = finite.empty() ? (vs.empty() ? kNaN : vs.front()) : Median(finite);
    if (finite.size() < vs.size()) {
      data->problems.push_back(
          absl::StrCat(StripRunSuffixes(name), ": counter '", k, "' is ",
                       finite.empty() ? "not finite (NaN or infinite)" : "not finite in some repetitions",
                       " in ", c.file));
    }
  }
  // A "verified" of 0 in any repetition fails the case (tools/gate's convention).
  if (values.count("verified")) {
    double v = 1;
    for (double x : values["verified"]) v = std::min(v, std::isfinite(x) ? x : 0.0);
    c.counters["verified"] = v;
  }
  return c;
}

// What the charts will lack: cases without counters or bytes, cases that did not run (one line
// per reason: a machine without a GPU skips many alike), files without counters.
void NoteWhatChartsLack(const std::vector<Entry>& entries, RunData* data) {
  std::set<std::string> files_with_counters;
  for (const Entry& e : entries) {
    if (!e.counters.empty()) files_with_counters.insert(e.file);
  }
  std::map<std::string, std::vector<std::string>> not_run;
  std::vector<std::string> not_run_order;
  for (const Case& c : data->cases) {
    if (!c.error.empty()) {
      if (!not_run.count(c.error)) not_run_order.push_back(c.error);
      not_run[c.error].push_back(StripRunSuffixes(c.name));
      continue;
    }
    if (c.family.rfind("calibration", 0) == 0) continue;
    const bool flops = c.FlopsPerSecond().has_value();
    const bool bytes = c.BytesPerSecond().has_value();
    if (!flops && !bytes && c.counters.empty()) {
      data->problems.push_back(absl::StrCat(StripRunSuffixes(c.name),
                                            ": no counters (no FLOP/s, no bytes/s): only its time is shown"));
    } else if (flops && !bytes && !absl::StartsWith(c.name, "BM_Sweep/")) {  // sweeps: the scaling map
      data->problems.push_back(absl::StrCat(StripRunSuffixes(c.name),
                                            ": no bytes counter (bytes/s), so its intensity is unknown "
                                            "and it is not a point on the roofline"));
    }
  }
  for (const std::string& reason : not_run_order) {
    const std::vector<std::string>& names = not_run[reason];
    // harness/skip.h: "skipped: <why>" is a case not applicable here, not a failure.
    const bool skip = reason.rfind("skipped: ", 0) == 0;
    const std::string what =
        skip ? absl::StrCat("skipped: ", reason.substr(9)) : absl::StrCat("did not run: ", reason);
    if (names.size() == 1) {
      data->problems.push_back(absl::StrCat(names[0], ": ", what));
      continue;
    }
    std::vector<std::string> shown(names.begin(), names.begin() + std::min<size_t>(names.size(), 3));
    data->problems.push_back(
        absl::StrCat(names.size(), " cases ", what, " (", absl::StrJoin(shown, ", "),
                     names.size() > 3 ? absl::StrCat(" and ", names.size() - 3, " more") : "", ")"));
  }
  for (const std::string& f : data->files) {
    if (!files_with_counters.count(f)) {
      data->problems.push_back(absl::StrCat(f,
                                            ": no case has counters (FLOP/s, bytes/s, ...): "
                                            "nothing from it can go on the roofline"));
    }
  }
}

}  // namespace

RunLoader::RunLoader() : entries_(std::make_unique<std::vector<Entry>>()) {}
RunLoader::~RunLoader() = default;

absl::Status RunLoader::AddFile(const std::string& path) {
  // At most harness::kMaxJsonFileBytes, checked before the file is read.
  absl::StatusOr<std::string> text = harness::ReadFileAtMost(path, harness::kMaxJsonFileBytes, "run file");
  if (!text.ok()) return text.status();
  return AddText(*text, path);
}

absl::Status RunLoader::AddText(const std::string& text, const std::string& path) {
  Json j;
  try {
    j = Json::parse(QuoteNonFiniteTokens(text));
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not JSON (byte ", e.byte, "): ", e.what(),
                     "; expected Google Benchmark's --benchmark_out file or //tools:bench's merged run"));
  }
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' is JSON but not a Google Benchmark run: no \"benchmarks\" array "
                     "(write one with --benchmark_out=FILE, or use //tools:bench --out=FILE)"));
  }
  data_.files.push_back(path);
  data_.inputs.push_back(ReadInputFile(j.value("context", Json()), path, &data_.problems));
  if (j.contains("context") && j["context"].is_object()) {
    ReadContext(j["context"], path, &data_);
  } else {
    data_.problems.push_back(absl::StrCat(path, ": no \"context\" object: the machine is unknown"));
  }
  if (j["benchmarks"].empty()) {
    data_.problems.push_back(
        absl::StrCat(path, ": the \"benchmarks\" array is empty (did the filter match nothing?)"));
  }
  int index = 0;
  for (const Json& b : j["benchmarks"]) {
    ++index;
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) {
      data_.problems.push_back(absl::StrCat(path, ": benchmarks[", index - 1, "] has no \"name\"; skipped"));
      continue;
    }
    entries_->push_back(ReadEntry(b, path, &data_));
    entries_->back().machine_key = data_.inputs.back().machine_key;
  }
  return absl::OkStatus();
}

RunData RunLoader::Finish() {
  // Group by case name (and a sweep file's machine key), keeping the order of first appearance.
  std::vector<std::pair<std::string, std::string>> order;  // (machine key, name)
  std::map<std::pair<std::string, std::string>, std::vector<const Entry*>> by_name;
  for (const Entry& e : *entries_) {
    const std::pair<std::string, std::string> key = {e.machine_key, e.name};
    if (!by_name.count(key)) order.push_back(key);
    by_name[key].push_back(&e);
  }
  for (const auto& key : order) {
    const std::vector<const Entry*> use = EntriesToUse(by_name[key]);
    if (use.empty()) continue;  // only spread aggregates (stddev, cv): nothing to show
    data_.cases.push_back(FoldCase(key.second, use, &data_));
    data_.cases.back().machine_key = key.first;
  }
  NoteWhatChartsLack(*entries_, &data_);
  return std::move(data_);
}

absl::StatusOr<RunData> LoadRuns(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no input: give at least one --in=RUN.json");
  RunLoader loader;
  for (const std::string& p : paths) {
    if (auto s = loader.AddFile(p); !s.ok()) return s;
  }
  return loader.Finish();
}

}  // namespace report
