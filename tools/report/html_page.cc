// The report page: sections, the case table, the gate, inline CSS and the sorting script.
#include "tools/report/html_page.h"

#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/report/family.h"
#include "tools/report/point_roof.h"
#include "tools/report/roofline_chart.h"
#include "tools/report/svg_writer.h"
#include "tools/report/units.h"

namespace report {
namespace {

constexpr char kStyle[] = R"css(
:root { --ink: #1f2933; --muted: #5c6670; --line: #d9dee4; --bg: #f6f7f9; --alert: #d0021b; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 20px 20px 40px; }
h1 { font-size: 24px; margin: 4px 0 2px; }
h2 { font-size: 18px; margin: 0 0 10px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.note { margin: -8px 0 16px; padding: 8px 12px; background: #eaf2fb; border-left: 4px solid #0072b2; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 16px 20px;
          margin: 0 0 18px; }
section.chart { padding: 10px; }
svg { display: block; max-width: 100%; height: auto; }
.problems { border-color: #e8b44c; background: #fffaf0; }
.problems li { margin: 2px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 4px 6px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.kv th { width: 190px; color: var(--muted); font-weight: normal; }
table.cases { font-size: 12px; }
.scroll { overflow-x: auto; }
table.cases th { position: sticky; top: 0; background: #eef1f5; cursor: pointer; user-select: none;
                 white-space: nowrap; }
table.cases th[aria-sort=ascending]::after { content: " \25B2"; }
table.cases th[aria-sort=descending]::after { content: " \25BC"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.case { font-family: "DejaVu Sans Mono", monospace; font-size: 11px; min-width: 230px; }
td.family { white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; }
.ok { color: #1a7f37; } .bad { color: var(--alert); font-weight: bold; } .muted { color: var(--muted); }
.absent { color: var(--muted); font-style: italic; margin: 6px 10px; }
.notes { margin: 6px 10px 2px; color: var(--alert); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: bold; font-size: 12px; }
.s-REGRESSED { background: #fde2e1; color: #a4000f; } .s-IMPROVED { background: #dcf5e3; color: #1a7f37; }
.s-SAME { background: #eef1f5; color: #3c4650; } .s-NEW, .s-MISSING { background: #fff1c2; color: #7a5a00; }
.s-UNVERIFIED { background: #fde2e1; color: #a4000f; }
details summary { cursor: pointer; color: var(--muted); margin-top: 8px; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
footer { color: var(--muted); font-size: 12px; }
)css";

// Sorts a table by the clicked column: numbers by data-v, text otherwise; empty cells last.
constexpr char kScript[] = R"js(
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var numeric = th.getAttribute('data-type') === 'num';
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        if (x === null || x === '') return (y === null || y === '') ? 0 : 1;
        if (y === null || y === '') return -1;
        var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
)js";

std::string Esc(const std::string& s) { return XmlEscape(s); }

std::string NumAttr(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "";
  return absl::StrFormat("%.17g", *v);
}

// A numeric table cell.
std::string NumCell(std::optional<double> v, const std::string& text) {
  return absl::StrCat("<td class=\"num\" data-v=\"", NumAttr(v), "\">", Esc(text), "</td>");
}

std::string FirstContext(const RunData& d, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    std::string v = d.ContextValue(k);
    if (!v.empty()) return v;
  }
  return "";
}

void KvRow(std::string* out, const std::string& key, const std::string& value) {
  if (value.empty()) return;
  absl::StrAppend(out, "<tr><th>", Esc(key), "</th><td>", Esc(value), "</td></tr>\n");
}

std::string MachineSection(const RunData& d, const RoofChoice& roofs) {
  std::string s = "<section id=\"machine\"><h2>Machine</h2>\n<table class=\"kv\">\n";
  KvRow(&s, "Machine", d.ContextValue("mlbench_machine"));
  KvRow(&s, "CPU",
        FirstContext(d, {"cpu_model", "mlbench_cpu", "run_context.cpu.model_name", "mlbench.cpu_model"}));
  const std::string family = d.ContextValue("run_context.cpu.family");
  if (!family.empty()) {
    KvRow(&s, "CPU signature",
          absl::StrCat(d.ContextValue("run_context.cpu.vendor"), " family ", family, " model ",
                       d.ContextValue("run_context.cpu.model"), " stepping ",
                       d.ContextValue("run_context.cpu.stepping")));
  }
  KvRow(&s, "CPU ISA", d.ContextValue("run_context.cpu.isa_flags"));
  KvRow(&s, "ISA the code was compiled for", CompiledIsa(d));
  std::string cpus = FirstContext(d, {"num_cpus", "mlbench.logical_cpus"});
  std::string mhz = d.ContextValue("mhz_per_cpu");
  KvRow(&s, "CPUs",
        cpus.empty() ? ""
                     : absl::StrCat(cpus, " logical", mhz.empty() ? "" : absl::StrCat(" at ", mhz, " MHz")));
  KvRow(&s, "Caches", d.ContextValue("caches"));
  std::string gpu = FirstContext(d, {"cuda_device", "mlbench.gpu_name", "mlbench_device"});
  KvRow(&s, "GPU / device", gpu);
  for (const Roof& r : roofs.roofs) {
    KvRow(&s, absl::StrCat("Peak", r.dtype.empty() ? "" : " " + r.dtype, " (", r.kind, ")"),
          absl::StrCat(FormatSi(r.peak_flops, "FLOP/s"),
                       r.bandwidth > 0 ? absl::StrCat(", memory ", FormatSi(r.bandwidth, "B/s"),
                                                      absl::StrFormat(", ridge %.3g FLOP/byte", r.Ridge()))
                                       : "",
                       "; ", r.source));
  }
  if (roofs.roofs.empty()) KvRow(&s, "Peak", "none known (no peak counter, no usable --ceilings file)");
  if (!roofs.memory.slopes.empty()) {
    std::vector<std::string> slopes;
    for (const MemorySlope& m : roofs.memory.slopes) slopes.push_back(m.Label());
    KvRow(&s, "Memory roofs (per traffic kind)",
          absl::StrCat(
              absl::StrJoin(slopes, ", "), "; from ",
              roofs.memory.file_path.empty() ? "the cases' roof_bytes/s counters" : roofs.memory.file_path));
  }
  KvRow(&s, "GEMM library", d.ContextValue("run_context.gemm"));
  KvRow(&s, "OpenBLAS", d.ContextValue("openblas"));
  KvRow(&s, "Build", FirstContext(d, {"build_type", "mlbench_build_type", "mlbench.build_type"}));
  KvRow(&s, "Compiler", d.ContextValue("compiler"));
  KvRow(&s, "Commit", FirstContext(d, {"commit", "mlbench.commit"}));
  KvRow(&s, "Run date", FirstContext(d, {"date", "mlbench.date"}));
  KvRow(&s, "Host", d.ContextValue("host_name"));
  KvRow(&s, "Load average", d.ContextValue("load_avg"));
  KvRow(&s, "Input files", absl::StrJoin(d.files, ", "));
  s += "</table>\n";
  if (!d.context.empty()) {
    s += "<details><summary>Every context key of the input</summary>\n<table class=\"kv\">\n";
    for (const auto& [k, v] : d.context) KvRow(&s, k, v.empty() ? "(empty)" : v);
    s += "</table></details>\n";
  }
  s += "</section>\n";
  return s;
}

// A case's "% of roof" and "roof" cells: against its own memory roof when it counts its
// traffic (point_roof.h), else the run's pct_of_roofline counter and the roof it implies.
struct RoofColumns {
  std::optional<double> pct;
  std::string name;  // the roof, named; "" when unknown
};

RoofColumns RoofColumnsOf(const Case& c, const RoofChoice& roofs) {
  const auto flops = c.FlopsPerSecond();
  const auto intensity = c.Intensity();
  if (c.error.empty() && flops && intensity && *intensity > 0) {
    if (auto roof = PointRoofFor(roofs, c, *intensity); roof && roof->memory) {
      return {100 * *flops / roof->attainable,
              roof->compute_bound() ? absl::StrCat("peak ", FormatSi(roof->peak_flops, "FLOP/s"), " (",
                                                   roof->MemoryLabel(), " above it)")
                                    : roof->MemoryLabel()};
    }
  }
  RoofColumns out{c.PctOfRoofline(), ""};
  const auto peak = c.PeakFlops(), bw = c.PeakBytes();
  if (!out.pct || !peak || !intensity) return out;
  out.name = bw && *intensity * *bw < *peak ? absl::StrCat("the run's single slope ", FormatSi(bw, "B/s"))
                                            : absl::StrCat("the run's peak ", FormatSi(peak, "FLOP/s"));
  return out;
}

// % of the roofline; above 100 (beyond noise) the case beat its roof: flagged.
std::string RoofCell(std::optional<double> pct) {
  if (pct && std::isfinite(*pct) && *pct > 100 * (1 + kRoofTolerance)) {
    return absl::StrCat("<td class=\"num bad\" data-v=\"", NumAttr(pct),
                        "\" title=\"above the roof: a counting error, or data served from cache\">",
                        Esc(FormatPercent(pct)), "</td>");
  }
  return NumCell(pct, FormatPercent(pct));
}

// The escaped name with a line-break opportunity after each '/'.
std::string BreakableName(const std::string& name) {
  std::string out;
  for (char ch : name) {
    out += Esc(std::string(1, ch));
    if (ch == '/') out += "<wbr>";
  }
  return out;
}

std::string VerifiedCell(const Case& c) {
  if (c.Skipped()) {
    return absl::StrCat("<td class=\"muted\" data-v=\"skipped\" title=\"", Esc(c.error), "\">skipped</td>");
  }
  if (!c.error.empty()) {
    return absl::StrCat("<td class=\"bad\" data-v=\"error\" title=\"", Esc(c.error), "\">error</td>");
  }
  auto v = c.Verified();
  if (!v) return "<td class=\"muted\" data-v=\"\">no check</td>";
  if (*v >= 1) return "<td class=\"ok\" data-v=\"yes\">yes</td>";
  return "<td class=\"bad\" data-v=\"failed\">FAILED</td>";
}

std::string CasesSection(const RunData& d, const RoofChoice& roofs, const std::optional<GateSummary>& gate,
                         const std::map<std::string, std::string>& colours) {
  std::string s = absl::StrCat("<section id=\"cases\"><h2>Cases (", d.cases.size(),
                               ")</h2>\n<p class=\"sub\">Medians over each case's repetitions. "
                               "Click a column to sort; a dash is a missing or non-finite value.</p>\n");
  s += "<div class=\"scroll\"><table class=\"cases sortable\" id=\"case-table\">\n<thead><tr>"
       "<th data-type=\"text\">case</th><th data-type=\"text\">family</th>"
       "<th class=\"num\" data-type=\"num\">reps</th>"
       "<th class=\"num\" data-type=\"num\">time</th>"
       "<th class=\"num\" data-type=\"num\">FLOP/s</th>"
       "<th class=\"num\" data-type=\"num\">bytes/s</th>"
       "<th class=\"num\" data-type=\"num\" title=\"arithmetic intensity, FLOP per byte\">FLOP/byte</th>"
       "<th class=\"num\" data-type=\"num\">% of peak</th>"
       "<th class=\"num\" data-type=\"num\" title=\"achieved FLOP/s over the case's own roof at this "
       "intensity\">% of roof</th>"
       "<th data-type=\"text\" title=\"the roof the case is held to: its traffic kind and level when "
       "it counts its traffic, else the run's own roof\">roof</th>"
       "<th data-type=\"text\">verified</th>";
  if (gate) s += "<th data-type=\"text\">gate</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const Case& c : d.cases) {
    const std::string name = StripRunSuffixes(c.name);
    auto it = colours.find(c.family);
    const std::string colour = it == colours.end() ? "#7f7f7f" : it->second;
    const RoofColumns roof = RoofColumnsOf(c, roofs);
    absl::StrAppend(
        &s, "<tr class=\"case-row\" data-case=\"", Esc(name), "\">", "<td class=\"case\" data-v=\"",
        Esc(name), "\" title=\"", Esc(c.label.empty() ? c.file : c.label + "\n" + c.file), "\">",
        BreakableName(name), "</td>", "<td class=\"family\" data-v=\"", Esc(c.family),
        "\"><span class=\"swatch\" style=\"background:", colour, "\"></span>", Esc(c.family), "</td>",
        NumCell(c.repetitions, absl::StrCat(c.repetitions)), NumCell(c.seconds, FormatSeconds(c.seconds)),
        NumCell(c.FlopsPerSecond(), FormatSi(c.FlopsPerSecond(), "FLOP/s")),
        NumCell(c.BytesPerSecond(), FormatSi(c.BytesPerSecond(), "B/s")),
        NumCell(c.Intensity(), FormatPlain(c.Intensity())),
        NumCell(c.PctOfPeak(), FormatPercent(c.PctOfPeak())), RoofCell(roof.pct),
        "<td class=\"roof\" data-v=\"", Esc(roof.name), "\">", roof.name.empty() ? kMissing : Esc(roof.name),
        "</td>", VerifiedCell(c));
    if (gate) {
      const std::string st = GateStatusOf(*gate, c.name);
      absl::StrAppend(&s, "<td data-v=\"", Esc(st), "\">",
                      st.empty() ? "<span class=\"muted\">not in the gate</span>"
                                 : absl::StrCat("<span class=\"badge s-", Esc(st), "\">", Esc(st), "</span>"),
                      "</td>");
    }
    s += "</tr>\n";
  }
  s += "</tbody></table></div>\n</section>\n";
  return s;
}

std::string GateSection(const GateSummary& g) {
  std::string s =
      absl::StrCat("<section id=\"gate\"><h2>Performance gate: ", Esc(g.verdict), "</h2>\n<ul>\n");
  for (const std::string& line : g.details) absl::StrAppend(&s, "<li>", Esc(line), "</li>\n");
  absl::StrAppend(&s, "<li>summary file: <code>", Esc(g.file), "</code></li>\n</ul>\n");
  s += "<table class=\"cases sortable\" id=\"gate-table\"><thead><tr><th data-type=\"text\">status</th>"
       "<th data-type=\"text\">case</th><th class=\"num\" data-type=\"text\">baseline</th>"
       "<th class=\"num\" data-type=\"text\">current</th><th class=\"num\" data-type=\"text\">change</th>"
       "<th class=\"num\" data-type=\"text\">p</th><th data-type=\"text\">note</th></tr></thead>\n<tbody>\n";
  for (const GateRow& r : g.rows) {
    absl::StrAppend(&s, "<tr><td data-v=\"", Esc(r.status), "\"><span class=\"badge s-", Esc(r.status), "\">",
                    Esc(r.status), "</span></td><td class=\"case\" data-v=\"", Esc(r.case_name), "\">",
                    Esc(r.case_name), "</td><td class=\"num\" data-v=\"", Esc(r.baseline), "\">",
                    Esc(r.baseline), "</td><td class=\"num\" data-v=\"", Esc(r.current), "\">",
                    Esc(r.current), "</td><td class=\"num\" data-v=\"", Esc(r.change), "\">", Esc(r.change),
                    "</td><td class=\"num\" data-v=\"", Esc(r.p), "\">", Esc(r.p), "</td><td data-v=\"",
                    Esc(r.note), "\">", Esc(r.note), "</td></tr>\n");
  }
  s += "</tbody></table>\n</section>\n";
  return s;
}

std::string ChartSection(const std::string& id, const std::string& title, const std::string& svg,
                         const std::string& absent, const std::vector<std::string>& notes = {}) {
  std::string s = absl::StrCat("<section class=\"chart\" id=\"", id, "\">\n");
  if (svg.empty()) {
    absl::StrAppend(&s, "<h2 style=\"margin:6px 10px\">", Esc(title), "</h2>\n<p class=\"absent\">",
                    Esc(absent), "</p>\n");
  } else {
    s += svg;
  }
  for (const std::string& n : notes) absl::StrAppend(&s, "<p class=\"notes\">", Esc(n), "</p>\n");
  s += "</section>\n";
  return s;
}

// The scaling map: machines, knees (a table), trend breaks, absent charts, the map's problems, then
// the charts.
std::string ScalingSection(const PageContent& c) {
  std::string s = "<section id=\"scaling\"><h2>Scaling map</h2>\n<p class=\"sub\">Machines: ";
  std::vector<std::string> machines;
  for (const std::string& m : c.scaling_machines) machines.push_back(Esc(m));
  absl::StrAppend(&s, absl::StrJoin(machines, "; "), ".</p>\n");
  if (c.scaling_knees.empty()) {
    s += "<p class=\"absent\">No knee: no series has an MFU.</p>\n";
  } else {
    s += "<table class=\"kv\" id=\"knees\"><thead><tr><th>Knees: the smallest B·T reaching 90% of the "
         "series' best MFU</th></tr></thead><tbody>\n";
    for (const std::string& k : c.scaling_knees)
      absl::StrAppend(&s, "<tr><td class=\"knee\">", Esc(k), "</td></tr>\n");
    s += "</tbody></table>\n";
  }
  if (!c.scaling_breaks.empty()) {
    s += "<ul class=\"notes\" id=\"trend-breaks\">\n";
    for (const std::string& b : c.scaling_breaks) absl::StrAppend(&s, "<li>", Esc(b), "</li>\n");
    s += "</ul>\n";
  }
  for (const std::string& a : c.scaling_absent) absl::StrAppend(&s, "<p class=\"absent\">", Esc(a), "</p>\n");
  if (!c.scaling_problems.empty()) {
    s += "<ul class=\"problems\" id=\"scaling-problems\">\n";
    for (const std::string& p : c.scaling_problems) absl::StrAppend(&s, "<li>", Esc(p), "</li>\n");
    s += "</ul>\n";
  }
  s += "</section>\n";
  for (size_t i = 0; i < c.scaling_svgs.size(); ++i)
    s += ChartSection(absl::StrCat("scaling-", i + 1), "Scaling", c.scaling_svgs[i], "");
  return s;
}

}  // namespace

std::string CompiledIsa(const RunData& data) {
  const std::string flags = data.ContextValue("compile_flags");
  static const std::string kKey = "compiler targeted ";
  size_t at = flags.find(kKey);
  if (at == std::string::npos) return data.ContextValue("run_context.build.target_isa");
  std::string isa = flags.substr(at + kKey.size());
  size_t end = isa.find_first_of(");");
  return end == std::string::npos ? isa : isa.substr(0, end);
}

std::string RenderPage(const RunData& d, const RoofChoice& roofs, const std::optional<GateSummary>& gate,
                       const PageContent& c) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  absl::StrAppend(&html, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                  "<title>mlbench report", c.machine.empty() ? "" : ": " + Esc(c.machine),
                  "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n<main>\n");
  absl::StrAppend(&html, "<h1>mlbench report", c.machine.empty() ? "" : ": " + Esc(c.machine), "</h1>\n",
                  "<p class=\"sub\">", d.cases.size(), " cases from ", d.files.size(), " file",
                  d.files.size() == 1 ? "" : "s", ": ", Esc(absl::StrJoin(d.files, ", ")), "</p>\n");
  if (!c.note.empty()) absl::StrAppend(&html, "<p class=\"note\" id=\"note\">", Esc(c.note), "</p>\n");
  html += ChartSection("roofline-section", "Roofline", c.roofline_svg, "no roofline", c.roofline_notes);
  html += MachineSection(d, roofs);
  std::vector<std::string> problems = roofs.problems;
  problems.insert(problems.end(), d.problems.begin(), d.problems.end());
  if (!problems.empty()) {
    // The first few in view, the rest one click away.
    constexpr size_t kShown = 6;
    absl::StrAppend(&html, "<section class=\"problems\" id=\"problems\"><h2>Missing or wrong in the input (",
                    problems.size(), ")</h2>\n<ul>\n");
    for (size_t i = 0; i < problems.size() && i < kShown; ++i)
      absl::StrAppend(&html, "<li>", Esc(problems[i]), "</li>\n");
    html += "</ul>\n";
    if (problems.size() > kShown) {
      absl::StrAppend(&html, "<details><summary>", problems.size() - kShown, " more</summary>\n<ul>\n");
      for (size_t i = kShown; i < problems.size(); ++i)
        absl::StrAppend(&html, "<li>", Esc(problems[i]), "</li>\n");
      html += "</ul></details>\n";
    }
    html += "</section>\n";
  }
  html += ChartSection("sweep-section", "Matmul sweep", c.sweep_svg, c.sweep_absent);
  html += ChartSection("steps-section", "Step time per step", c.steps_svg, c.steps_absent);
  html += ChartSection("mfu-section", "MFU loss breakdown", c.mfu_svg, c.mfu_absent);
  if (!c.scaling_svgs.empty() || !c.scaling_problems.empty()) html += ScalingSection(c);
  if (!c.history_source.empty()) {
    absl::StrAppend(&html, "<section id=\"history\"><h2>History: ", c.trend_svgs.size(), " series from ",
                    Esc(c.history_source), "</h2>\n");
    if (!c.history_left_out.empty())
      absl::StrAppend(&html, "<p class=\"note\" id=\"history-left-out\">", Esc(c.history_left_out), "</p>\n");
    html += "</section>\n";
    for (size_t i = 0; i < c.trend_svgs.size(); ++i) {
      html += ChartSection(absl::StrCat("trend-", i + 1), "Trend", c.trend_svgs[i], "");
    }
  }
  html += CasesSection(d, roofs, gate, c.colours);
  if (gate) html += GateSection(*gate);
  absl::StrAppend(&html, "<footer>Made by <code>", Esc(c.command),
                  "</code>. This page is self-contained: it fetches nothing.</footer>\n</main>\n<script>",
                  kScript, "</script>\n</body>\n</html>\n");
  return html;
}

}  // namespace report
