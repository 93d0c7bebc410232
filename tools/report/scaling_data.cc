// Sweep cases -> points, series, machines, knees and trend breaks (scaling_data.h).
#include "tools/report/scaling_data.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/report/family.h"
#include "tools/report/units.h"

namespace report {
namespace {

// The point of a sweep case, or a problem (returned as the string) when it cannot be placed.
std::string ToPoint(const Case& c, ScalingPoint* p) {
  p->name = StripRunSuffixes(c.name);
  std::vector<std::string> parts = absl::StrSplit(p->name, '/');
  if (parts.size() < 4)
    return absl::StrCat(p->name, ": not BM_Sweep/<preset>/<device>/<dtype>/...; left off the scaling map");
  p->preset = parts[1], p->device = parts[2], p->dtype = parts[3];
  p->recompute = "none";
  for (const std::string& part : parts) {
    if (absl::StartsWith(part, "recompute:")) p->recompute = part.substr(10);
  }
  auto batch = c.Counter("batch"), seq = c.Counter("seq"), tokens = c.Counter("tokens_per_step");
  if (!batch || !seq || !tokens || !(*tokens > 0)) {
    std::vector<std::string> missing;
    if (!batch) missing.push_back("batch");
    if (!seq) missing.push_back("seq");
    if (!tokens || !(*tokens > 0)) missing.push_back("tokens_per_step");
    return absl::StrCat(p->name, " (", c.file, "): no ", absl::StrJoin(missing, ", "),
                        " counter; left off the scaling map");
  }
  p->machine_key = c.machine_key;
  p->batch = *batch, p->seq = *seq, p->tokens = *tokens;
  p->repetitions = c.repetitions;
  p->disturbed = c.Counter("disturbed").value_or(0) > 0;
  p->mfu = c.Counter("mfu");
  auto lo = c.Counter("mfu_min"), hi = c.Counter("mfu_max");
  if (lo && hi) p->mfu_spread = std::max(0.0, *hi - *lo);
  p->ms = c.Counter("ms_per_step");
  if (!p->ms && c.seconds) p->ms = *c.seconds * 1e3;
  p->predicted_ms = c.Counter("predicted_ms");
  p->attention_share = c.Counter("attention_flops_share");
  p->tokens_per_second = c.Counter("tokens_per_second");
  p->params = c.Counter("params");
  p->mem_measured = c.Counter("mem_peak_bytes_measured");
  p->mem_predicted = c.Counter("mem_peak_bytes");
  p->peak_flops = c.PeakFlops();
  return "";
}

// One problem line per counter some points lack: which chart goes without them.
void NoteMissing(const ScalingMap& m, std::vector<std::string>* problems) {
  struct Need {
    const char* what;
    std::optional<double> ScalingPoint::*field;
    const char* chart;
  };
  const Need needs[] = {
      {"mfu", &ScalingPoint::mfu, "scaling_mfu.svg"},
      {"ms_per_step (or a time)", &ScalingPoint::ms, "scaling_time.svg and scaling_predicted.svg"},
      {"attention_flops_share", &ScalingPoint::attention_share, "scaling_time.svg's lower panel"},
      {"tokens_per_second or params", &ScalingPoint::tokens_per_second, "scaling_tokens.svg"},
      {"predicted_ms", &ScalingPoint::predicted_ms, "scaling_predicted.svg"},
      {"mem_peak_bytes_measured", &ScalingPoint::mem_measured, "scaling_memory.svg (measured)"},
      {"mem_peak_bytes", &ScalingPoint::mem_predicted, "scaling_memory.svg (predicted)"},
      {"mfu_min and mfu_max", &ScalingPoint::mfu_spread, "the trend-break check"}};
  for (const Need& n : needs) {
    std::vector<std::string> names;
    for (const ScalingPoint& p : m.points) {
      const bool lacks = !(p.*n.field) || (n.field == &ScalingPoint::tokens_per_second && !p.params);
      if (lacks) names.push_back(absl::StrCat(p.name, " (", p.machine_key, ")"));
    }
    if (names.empty()) continue;
    std::vector<std::string> shown(names.begin(), names.begin() + std::min<size_t>(names.size(), 3));
    problems->push_back(
        absl::StrCat("scaling map: ", names.size(), " point", names.size() == 1 ? "" : "s", " without ",
                     n.what, ", not on ", n.chart, ": ", absl::StrJoin(shown, ", "),
                     names.size() > 3 ? absl::StrCat(" and ", names.size() - 3, " more") : ""));
  }
}

// The machines of the input, in file order (points of a key no file declares get their own).
void CollectMachines(const RunData& data, ScalingMap* m) {
  auto add = [&](const std::string& key, const InputFile* f) {
    for (const ScalingMachine& x : m->machines) {
      if (x.key == key) return;
    }
    ScalingMachine x;
    x.key = key;
    if (f != nullptr) x.cpu = f->cpu, x.isa = f->isa, x.gpu = f->gpu, x.machine = f->machine;
    m->machines.push_back(x);
  };
  for (const InputFile& f : data.inputs) {
    if (f.sweep) add(f.machine_key, &f);
  }
  for (const ScalingPoint& p : m->points) add(p.machine_key, nullptr);
  for (size_t i = 0; i < m->machines.size(); ++i) {
    ScalingMachine& x = m->machines[i];
    x.colour = FamilyColour(static_cast<int>(i));
    std::map<std::string, std::pair<double, double>> peaks;  // dtype -> (min, max)
    for (const ScalingPoint& p : m->points) {
      if (p.machine_key != x.key || !p.peak_flops) continue;
      auto [it, fresh] = peaks.insert({p.dtype, {*p.peak_flops, *p.peak_flops}});
      it->second = {std::min(it->second.first, *p.peak_flops), std::max(it->second.second, *p.peak_flops)};
    }
    for (const auto& [dtype, range] : peaks) x.peaks.push_back({dtype, range.second});
  }
}

}  // namespace

std::string ScalingSeries::Label() const {
  return absl::StrCat(preset, " ", dtype, device == "cpu" ? "" : " " + device,
                      recompute == "none" ? "" : " recompute:" + recompute);
}

std::string ScalingMachine::Name() const {
  if (!cpu.empty()) return gpu.empty() || gpu == "none" ? cpu : absl::StrCat(cpu, " + ", gpu);
  if (!machine.empty()) return machine;
  return key.empty() ? "unknown machine" : absl::StrCat("machine ", key);
}

std::string ScalingMachine::Legend() const {
  std::vector<std::string> parts = {Name()};
  if (!isa.empty()) parts.push_back(isa);
  std::vector<std::string> p;
  for (const auto& [dtype, flops] : peaks) p.push_back(absl::StrCat(FormatSi(flops, "FLOP/s"), " ", dtype));
  parts.push_back(p.empty() ? "peak unknown" : absl::StrCat("peak ", absl::StrJoin(p, ", ")));
  return absl::StrCat(absl::StrJoin(parts, ", "), key.empty() ? "" : absl::StrCat(" (key ", key, ")"));
}

namespace {

// Series of the points (by machine, then preset, device, dtype, recompute), their styles and
// colours, and each series' points by tokens then batch.
void GroupSeries(ScalingMap* m) {
  using Key = std::tuple<size_t, std::string, std::string, std::string, std::string>;
  std::map<Key, size_t> index;
  std::set<std::tuple<std::string, std::string, std::string, std::string>> styles;
  for (const ScalingPoint& p : m->points) styles.insert({p.preset, p.device, p.dtype, p.recompute});
  std::vector<Key> keys;
  for (ScalingPoint& p : m->points) {
    size_t machine = 0;
    while (m->machines[machine].key != p.machine_key) ++machine;  // CollectMachines added every key
    keys.push_back({machine, p.preset, p.device, p.dtype, p.recompute});
  }
  std::set<Key> sorted(keys.begin(), keys.end());
  for (const Key& k : sorted) {
    ScalingSeries s;
    s.machine = std::get<0>(k);
    s.machine_key = m->machines[s.machine].key;
    s.preset = std::get<1>(k), s.device = std::get<2>(k), s.dtype = std::get<3>(k),
    s.recompute = std::get<4>(k);
    s.style = static_cast<int>(
        std::distance(styles.begin(), styles.find({s.preset, s.device, s.dtype, s.recompute})));
    s.colour = m->machines.size() > 1 ? m->machines[s.machine].colour : FamilyColour(s.style);
    index[k] = m->series.size();
    m->series.push_back(s);
  }
  for (size_t i = 0; i < m->points.size(); ++i) {
    m->points[i].series = index[keys[i]];
    m->series[index[keys[i]]].points.push_back(i);
  }
  for (ScalingSeries& s : m->series) {
    std::stable_sort(s.points.begin(), s.points.end(), [&](size_t a, size_t b) {
      const ScalingPoint &x = m->points[a], &y = m->points[b];
      return x.tokens != y.tokens ? x.tokens < y.tokens : x.batch < y.batch;
    });
  }
}

// The series' MFU curve, knee and trend breaks; problems when a curve cannot be judged.
void JudgeCurve(ScalingMap* m, ScalingSeries* s) {
  for (size_t i : s->points) {
    const ScalingPoint& p = m->points[i];
    if (!p.mfu) continue;
    if (!s->curve.empty() && m->points[s->curve.back()].tokens == p.tokens) {
      if (*p.mfu > *m->points[s->curve.back()].mfu) s->curve.back() = i;
      continue;
    }
    s->curve.push_back(i);
  }
  if (s->curve.empty()) return;
  std::vector<accounting::CurvePoint> c;
  for (size_t i : s->curve) {
    const ScalingPoint& p = m->points[i];
    c.push_back({p.tokens, *p.mfu, p.mfu_spread.value_or(std::nan(""))});
  }
  const std::string where = absl::StrCat(s->Label(), " on ", m->machines[s->machine].Name());
  if (auto k = accounting::FindKnee(c); k.ok()) {
    s->knee = s->curve[k->index];
    s->best = s->curve[k->best_index];
  } else {
    m->problems.push_back(absl::StrCat("scaling map: ", where, ": ", k.status().message()));
  }
  auto b = accounting::FindTrendBreaks(c);
  if (!b.ok()) {
    m->problems.push_back(
        absl::StrCat("scaling map: ", where, ": trend breaks not judged: ", b.status().message()));
    return;
  }
  for (const accounting::TrendBreak& t : *b) {
    const ScalingPoint& p = m->points[s->curve[t.index]];
    s->breaks.push_back({s->curve[t.index], t});
    m->break_lines.push_back(absl::StrFormat(
        "trend break: %s on %s: MFU %.1f%%, %.1f points %s the line through its neighbours (%.1f%%), more "
        "than the repetitions' spread (%.1f points)",
        p.name, m->machines[s->machine].Name(), 100 * *p.mfu, 100 * std::fabs(t.deviation),
        t.deviation < 0 ? "below" : "above", 100 * t.expected_y, 100 * t.allowed));
  }
}

}  // namespace

std::string KneeLine(const ScalingMap& m, const ScalingSeries& s) {
  if (!s.knee || !s.best) return "";
  const ScalingPoint &k = m.points[*s.knee], &b = m.points[*s.best];
  const ScalingMachine& machine = m.machines[s.machine];
  return absl::StrFormat(
      "knee: %s on %s%s: B·T = %.0f (B:%.0f T:%.0f), MFU %.1f%% of best %.1f%% (at B·T = %.0f; %.1f%% of it)",
      s.Label(), machine.Name(), machine.key.empty() ? "" : absl::StrCat(" (key ", machine.key, ")"),
      k.tokens, k.batch, k.seq, 100 * *k.mfu, 100 * *b.mfu, b.tokens, 100 * *k.mfu / *b.mfu);
}

ScalingMap CollectScaling(const RunData& data) {
  ScalingMap m;
  for (const Case& c : data.cases) {
    if (!absl::StartsWith(c.name, kSweepPrefix) || !c.error.empty()) continue;
    ScalingPoint p;
    if (std::string problem = ToPoint(c, &p); !problem.empty()) {
      m.problems.push_back(problem);
      continue;
    }
    m.points.push_back(p);
  }
  if (m.points.empty()) return m;
  CollectMachines(data, &m);
  GroupSeries(&m);
  NoteMissing(m, &m.problems);
  for (ScalingSeries& s : m.series) {
    JudgeCurve(&m, &s);
    if (std::string line = KneeLine(m, s); !line.empty()) m.knee_lines.push_back(line);
  }
  return m;
}

}  // namespace report
