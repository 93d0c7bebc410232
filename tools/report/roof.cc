// Choosing the roofline's ceilings: the measured file when it is this machine's, else the run's.
#include "tools/report/roof.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/report/family.h"
#include "tools/report/units.h"

namespace report {

std::string PeakKind(const std::string& source) {
  if (absl::StartsWith(source, "measured at start-up")) return "measured at start-up";
  if (absl::StartsWith(source, "measured")) return "measured ceilings";
  if (absl::StartsWith(source, "datasheet")) return "datasheet";
  if (absl::StartsWith(source, "declared")) return "declared (cores x lanes x clock)";
  if (absl::StartsWith(source, "flag")) return "given by a flag";
  return "reported by the run";
}

std::vector<std::string> RunMachines(const RunData& data) {
  std::vector<std::string> out;
  for (const char* key : {"cpu_model", "mlbench_cpu", "run_context.cpu.model_name", "mlbench.cpu_model",
                          "cuda_device", "run_context.gpu.name", "mlbench.gpu_name"}) {
    std::string v = data.ContextValue(key);
    if (v.empty() || absl::StartsWith(v, "none")) continue;
    // A key seen in several files with different values holds "a; b".
    for (absl::string_view part : absl::StrSplit(v, "; ")) {
      std::string p(part);
      if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

namespace {

RoofChoice FromCeilings(const accounting::Ceilings& c, const std::string& path) {
  RoofChoice choice;
  for (const auto& [dtype, peak] : c.peak_flops) {
    if (!(peak > 0)) continue;
    Roof r;
    r.dtype = dtype;
    r.peak_flops = peak;
    // A cache-resident STREAM figure (`ceilings --sizes=quick`) is no memory roof: no slope.
    r.bandwidth = c.bandwidth_cache_resident ? 0 : c.bandwidth_bytes_per_s;
    r.kind = "measured ceilings";
    r.source = absl::StrCat("measured: ", path, " (", c.machine, "; ", c.method, "; ", c.date, ")");
    choice.roofs.push_back(r);
  }
  std::vector<std::string> peaks;
  for (const Roof& r : choice.roofs)
    peaks.push_back(absl::StrCat(r.dtype, " ", FormatSi(r.peak_flops, "FLOP/s")));
  choice.summary =
      absl::StrCat("Roof: measured ceilings of ", c.machine.empty() ? "this machine" : c.machine, " (",
                   absl::StrJoin(peaks, ", "), "; ", FormatSi(c.bandwidth_bytes_per_s, "B/s"),
                   c.bandwidth_cache_resident ? " cache-resident, not drawn as a memory roof" : "", ") from ",
                   path, c.method.empty() ? "" : absl::StrCat(": ", c.method));
  if (c.bandwidth_cache_resident) {
    choice.problems.push_back(absl::StrCat(
        "the bandwidth of '", path, "' was measured on cache-sized arrays (ceilings --sizes=quick): not a "
        "memory bound, so the roof has no memory slope; measure with `bazel run //micro:ceilings`"));
  }
  return choice;
}

RoofChoice FromRun(const RunData& data) {
  RoofChoice choice;
  struct Acc {
    double peak = 0, bw = 0;
    std::set<double> peaks;
    std::string source;
  };
  std::map<std::string, Acc> by_dtype;
  for (const Case& c : data.cases) {
    auto p = c.PeakFlops();
    if (!p || !(*p > 0) || !c.error.empty()) continue;
    Acc& a = by_dtype[DtypeOf(c.name)];
    a.peaks.insert(*p);
    if (*p > a.peak) {
      a.peak = *p;
      a.source = c.PeakSource();
    }
    if (auto b = c.PeakBytes(); b && *b > a.bw) a.bw = *b;
  }
  // Cases without a dtype in their name (elementwise ops: fp32 arithmetic) join the fp32 roof
  // when there is one, so one machine does not get two nearly equal roofs.
  if (by_dtype.count("") && by_dtype.count("fp32")) {
    Acc& f = by_dtype["fp32"];
    const Acc& e = by_dtype[""];
    f.peaks.insert(e.peaks.begin(), e.peaks.end());
    if (e.peak > f.peak) f.peak = e.peak, f.source = e.source;
    f.bw = std::max(f.bw, e.bw);
    by_dtype.erase("");
  }
  for (auto& [dtype, a] : by_dtype) {
    Roof r;
    r.dtype = dtype;
    r.peak_flops = a.peak;
    r.bandwidth = a.bw;
    r.source = a.source.empty() ? "the run's peak_FLOP/s counter (no source in the label)" : a.source;
    r.kind = PeakKind(a.source);
    choice.roofs.push_back(r);
    if (a.peaks.size() > 1) {
      choice.problems.push_back(absl::StrCat(
          "the cases divided by ", a.peaks.size(), " different ", dtype.empty() ? "" : dtype + " ", "peaks (",
          FormatSi(*a.peaks.begin(), "FLOP/s"), " to ", FormatSi(*a.peaks.rbegin(), "FLOP/s"),
          "; each binary measured its own): the highest is drawn. Give every binary the same "
          "--ceilings=FILE for one roof"));
    }
  }
  // A memory slope: every roof gets the highest bandwidth seen (gpt_step reports none).
  double bw = 0;
  for (const Roof& r : choice.roofs) bw = std::max(bw, r.bandwidth);
  for (Roof& r : choice.roofs) r.bandwidth = bw;
  if (choice.roofs.empty()) {
    choice.summary = "No roof: no case reported a peak (peak_FLOP/s), and no --ceilings file was given";
    return choice;
  }
  std::vector<std::string> parts;
  for (const Roof& r : choice.roofs) {
    parts.push_back(absl::StrCat(r.dtype.empty() ? "" : r.dtype + " ", FormatSi(r.peak_flops, "FLOP/s")));
  }
  const Roof& top =
      *std::max_element(choice.roofs.begin(), choice.roofs.end(),
                        [](const Roof& a, const Roof& b) { return a.peak_flops < b.peak_flops; });
  choice.summary = absl::StrCat("Roof: ", top.kind, " peak (", absl::StrJoin(parts, ", "), "; ",
                                bw > 0 ? FormatSi(bw, "B/s") : "no bandwidth", "): ", top.source);
  return choice;
}

}  // namespace

static void SortRoofs(RoofChoice* c) {
  std::stable_sort(c->roofs.begin(), c->roofs.end(),
                   [](const Roof& a, const Roof& b) { return a.peak_flops > b.peak_flops; });
}

// The run's machine names hold the file's.
static bool IsThisMachines(const RunData& data, const accounting::Ceilings& ceilings) {
  const std::vector<std::string> machines = RunMachines(data);
  return std::find(machines.begin(), machines.end(), ceilings.machine) != machines.end();
}

static RoofChoice ChooseRoofsUnsorted(const RunData& data,
                                      const std::optional<accounting::Ceilings>& ceilings,
                                      const std::string& ceilings_path) {
  std::vector<std::string> problems;
  if (ceilings.has_value()) {
    const std::vector<std::string> machines = RunMachines(data);
    if (IsThisMachines(data, *ceilings)) {
      RoofChoice c = FromCeilings(*ceilings, ceilings_path);
      if (!c.roofs.empty()) return c;
      problems.push_back(
          absl::StrCat("--ceilings=", ceilings_path, " has no peak > 0; the run's peaks are drawn"));
    } else if (machines.empty()) {
      problems.push_back(absl::StrCat(
          "--ceilings=", ceilings_path, " is for '", ceilings->machine,
          "', but the run's context names no machine (cpu_model, mlbench_cpu, cuda_device) to check it "
          "against: not used; the run's own peaks are drawn"));
    } else {
      problems.push_back(
          absl::StrCat("--ceilings=", ceilings_path, " was measured on another machine ('", ceilings->machine,
                       "'; this run: '", absl::StrJoin(machines, "', '"),
                       "'): not used; the run's own peaks are drawn. Measure this machine with "
                       "`bazel run //micro:ceilings -- --ceilings_out=FILE`"));
    }
  }
  RoofChoice c = FromRun(data);
  c.problems.insert(c.problems.begin(), problems.begin(), problems.end());
  return c;
}

RoofChoice ChooseRoofs(const RunData& data, const std::optional<accounting::Ceilings>& ceilings,
                       const std::string& ceilings_path) {
  RoofChoice c = ChooseRoofsUnsorted(data, ceilings, ceilings_path);
  SortRoofs(&c);
  const bool usable = ceilings.has_value() && IsThisMachines(data, *ceilings);
  c.memory = ChooseMemoryRoofs(data, usable ? &*ceilings : nullptr, ceilings_path);
  c.problems.insert(c.problems.end(), c.memory.problems.begin(), c.memory.problems.end());
  return c;
}

const Roof* RoofFor(const RoofChoice& choice, const std::string& case_name) {
  if (choice.roofs.empty()) return nullptr;
  const std::string dtype = DtypeOf(case_name);
  for (const Roof& r : choice.roofs) {
    if (!dtype.empty() && r.dtype == dtype) return &r;
  }
  const Roof* best = &choice.roofs[0];
  for (const Roof& r : choice.roofs) {
    if (r.peak_flops > best->peak_flops) best = &r;
  }
  return best;
}

}  // namespace report
