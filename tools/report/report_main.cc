// //tools:report — the roofline, the matmul sweep, the step times and the MFU loss breakdown of
// benchmark runs, as SVG files and one self-contained HTML page.
//
//   bazel run //tools:report -- --in=RUN.json [--in=MORE.json ...] [--ceilings=FILE]
//                               [--gate=SUMMARY.md] [--note=TEXT] [--history=DB] --out=DIR
//
// Exit status: 0 when the report was written (problems in the input are listed on the page
// and on stderr), 2 on bad usage or an input that cannot be read at all.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "accounting/ceilings.h"
#include "harness/user_path.h"
#include "tools/report/gate_summary.h"
#include "tools/report/input_loader.h"
#include "tools/report/report.h"

namespace {

constexpr char kUsage[] =
    "report: the roofline and friends of benchmark runs, as SVG files and one HTML page.\n"
    "\n"
    "Usage: bazel run //tools:report -- --in=RUN.json [--in=MORE.json ...] [--ceilings=FILE]\n"
    "                                   [--gate=SUMMARY.md] [--note=TEXT] [--history=DB] --out=DIR\n"
    "Example: bazel run //tools:report -- --in=matmul.json --out=report\n"
    "\n"
    "  --in=FILE        Google Benchmark JSON: --benchmark_out of //micro:matmul, //micro:elementwise,\n"
    "                   //micro:ceilings, //macro:gpt_step, or //tools:bench --out. Repeatable.\n"
    "  --ceilings=FILE  measured ceilings (//micro:ceilings --ceilings_out=FILE) to draw the roof\n"
    "                   from; used only when its machine is the run's. Without it: the peaks the\n"
    "                   cases divided by (measured at start-up, a ceilings file, or a datasheet).\n"
    "  --gate=FILE      tools/gate's markdown summary (--summary=FILE): statuses on the page.\n"
    "  --note=TEXT      a line shown under the page's heading (what the machine is, how loaded).\n"
    "  --history=DB     a tools/history database: one trend chart per series (trend_1.svg, ...),\n"
    "                   the median and spread per recorded run, change points marked; with or\n"
    "                   without --in.\n"
    "  --history_metric=M  the metric of the trends: real_time (default), cpu_time or a counter\n"
    "                   (NAME, NAME:lower), as tools/gate and tools/history take it.\n"
    "  --out=DIR        folder for index.html, roofline.svg, matmul_sweep.svg, steps.svg,\n"
    "                   mfu_breakdown.svg (created if missing; files written via temp + rename).\n"
    "\n"
    "Relative paths are relative to the folder bazel run was started from.\n"
    "Exit status: 0 the report was written; 2 bad usage or an input that cannot be read.\n";

bool Value(const char* arg, const char* name, std::string* out) {
  const std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  *out = std::string(arg + prefix.size());
  return true;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "report: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

// An input that cannot be read: "report: " + `what` + the reason on stderr, exit status 2.
int Fail(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "report: %s%s\n", what.c_str(), std::string(s.message()).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // `bazel run` starts us in the runfiles tree: every path flag is resolved against the folder
  // the user ran bazel in (harness/user_path.h); the page's command line shows them as typed.
  std::vector<std::string> inputs;
  std::string ceilings_path, gate_path, out, note, history_path, history_metric = "real_time";
  std::vector<std::string> given;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    std::string v;
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      std::printf("%s", kUsage);
      return 0;
    }
    if (Value(a, "in", &v)) {
      if (v.empty()) return Usage("--in= is empty: give a JSON file");
      inputs.push_back(harness::UserPath(v));
    } else if (Value(a, "ceilings", &v)) {
      if (v.empty()) return Usage("--ceilings= is empty: give a ceilings JSON file or leave the flag out");
      ceilings_path = harness::UserPath(v);
    } else if (Value(a, "gate", &v)) {
      if (v.empty()) return Usage("--gate= is empty: give tools/gate's summary file or leave the flag out");
      gate_path = harness::UserPath(v);
    } else if (Value(a, "note", &v)) {
      note = v;
    } else if (Value(a, "history", &v)) {
      if (v.empty()) return Usage("--history= is empty: give a tools/history database or leave the flag out");
      history_path = harness::UserPath(v);
    } else if (Value(a, "history_metric", &v)) {
      if (v.empty()) return Usage("--history_metric= is empty: real_time, cpu_time or a counter's name");
      history_metric = v;
    } else if (Value(a, "out", &v)) {
      if (v.empty()) return Usage("--out= is empty: give the folder to write to");
      out = harness::UserPath(v);
    } else {
      return Usage(absl::StrCat("unknown argument '", a,
                                "' (allowed: --in, --ceilings, --gate, --note, --history, --history_metric, --out, "
                                "--help)"));
    }
    given.push_back(a);
  }
  if (inputs.empty() && history_path.empty()) return Usage("no --in=RUN.json (or --history=DB) given");
  if (out.empty()) return Usage("no --out=DIR given");

  report::ReportInputs in;
  if (!inputs.empty()) {
    auto data = report::LoadRuns(inputs);
    if (!data.ok()) return Fail("", data.status());
    in.data = std::move(*data);
  }
  if (!history_path.empty()) {
    auto trends = report::LoadTrends(history_path, history_metric);
    if (!trends.ok()) return Fail("", trends.status());
    in.trends = std::move(*trends);
    in.history_path = history_path;
  }
  if (!ceilings_path.empty()) {
    auto c = accounting::ReadCeilings(ceilings_path);
    if (!c.ok()) return Fail("--ceilings: ", c.status());
    in.ceilings = *c;
    in.ceilings_path = ceilings_path;
  }
  if (!gate_path.empty()) {
    auto g = report::ReadGateSummary(gate_path);
    if (!g.ok()) return Fail("", g.status());
    in.gate = *g;
  }
  in.note = note;
  in.command = absl::StrCat("bazel run //tools:report -- ", absl::StrJoin(given, " "));

  report::Report r = report::BuildReport(in);
  if (auto s = report::WriteReport(r, out); !s.ok()) return Fail("", s);
  for (const std::string& n : r.notes) std::fprintf(stderr, "report: note: %s\n", n.c_str());
  std::vector<std::string> files;
  for (const auto& [name, text] : r.files) files.push_back(name);
  std::printf("report: %zu cases; roof: %s\nreport: wrote %s/{%s}\n", in.data.cases.size(),
              r.roofs.summary.c_str(), out.c_str(), absl::StrJoin(files, ",").c_str());
  return 0;
}
