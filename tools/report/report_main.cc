// //tools:report — the roofline, the matmul sweep, the step times and the MFU loss breakdown of
// benchmark runs, as SVG files and one self-contained HTML page.
//
//   bazel run //tools:report -- --in=RUN.json [--in=MORE.json ...] [--ceilings=FILE]
//                               [--gate=SUMMARY.md] [--note=TEXT] [--history=DB] [--force] --out=DIR
//
// Exit status: 0 when the report was written (problems in the input are listed on the page
// and on stderr), 2 on bad usage, an input that cannot be read at all, or an --out folder
// refused (tools/report/out_folder.h) or not written.

#include <algorithm>
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
    "                                   [--gate=SUMMARY.md] [--note=TEXT] [--history=DB] [--force] "
    "--out=DIR\n"
    "Example: bazel run //tools:report -- --in=matmul.json --out=report\n"
    "\n"
    "  --in=FILE        Google Benchmark JSON: --benchmark_out of //micro:matmul, //micro:elementwise,\n"
    "                   //micro:ceilings, //macro:gpt_step, or //tools:bench --out. Repeatable.\n"
    "  --ceilings=FILE  measured ceilings (//micro:ceilings --ceilings_out=FILE) to draw the roof\n"
    "                   from; used only when its machine is the run's. Without it: the peaks the\n"
    "                   cases divided by (measured at start-up, a ceilings file, or a datasheet).\n"
    "                   Its memory roofs per traffic kind and cache level (memory_roofs_bytes_per_s,\n"
    "                   cache_levels) hold each case that counts its traffic (traffic_* counters) to\n"
    "                   the roof of its kind at the level of its working set; without them, the\n"
    "                   case's own roof_bytes/s counter does.\n"
    "  --gate=FILE      tools/gate's markdown summary (--summary=FILE): statuses on the page.\n"
    "  --note=TEXT      a line shown under the page's heading (what the machine is, how loaded).\n"
    "  --history=DB     a tools/history database: one trend chart per series (trend_1.svg, ...),\n"
    "                   the median and spread per recorded run, change points marked; with or\n"
    "                   without --in.\n"
    "  --history_metric=M  the metric of the trends: real_time (default), cpu_time or a counter\n"
    "                   (NAME, NAME:lower), as tools/gate and tools/history take it.\n"
    "  --history_case=REGEX  draw only the series whose case name matches (ECMAScript, searched).\n"
    "  --max_trends=N   draw at most N series, the first by machine and case (default 50, 1..1000);\n"
    "                   the page and stderr say how many were left out and how to see them.\n"
    "  --out=DIR        folder for index.html, roofline.svg, matmul_sweep.svg, steps.svg,\n"
    "                   mfu_breakdown.svg, trend_N.svg, and with //tools:sweep files the scaling map\n"
    "                   (scaling_mfu.svg, scaling_time.svg, scaling_tokens.svg, scaling_predicted.svg,\n"
    "                   scaling_memory.svg; its knees printed on stdout) (created if missing; files\n"
    "                   written via temp + rename) and report_manifest.txt, the list of the files it\n"
    "                   wrote there. A later report removes only files that list names. A folder\n"
    "                   holding other files and no manifest (one report did not make, e.g. --out=.)\n"
    "                   is refused, as is a file of a report's name the manifest does not list.\n"
    "  --force          write into such a folder anyway: files named as the report's are replaced\n"
    "                   (each named on stderr); no other file is removed.\n"
    "\n"
    "Relative paths are relative to the folder bazel run was started from.\n"
    "Exit status: 0 the report was written; 2 bad usage, an input that cannot be read, or an --out\n"
    "folder refused or not written.\n";

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

struct Args {
  std::vector<std::string> inputs;
  std::string ceilings_path, gate_path, out, note, history_path, history_metric = "real_time";
  report::TrendSelection trends;
  bool force = false;
  std::vector<std::string> given;  // as typed, for the page's footer
};

// --max_trends: decimal digits only, 1..kMostMaxTrends.
bool ParseMaxTrends(const std::string& v, int* n) {
  if (v.empty() || v.size() > 4 ||
      !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  *n = std::stoi(v);
  return *n >= 1 && *n <= report::kMostMaxTrends;
}

// One flag into `a`; "" or the error.
std::string ParseFlag(const char* f, Args* a) {
  std::string v;
  if (Value(f, "in", &v)) {
    if (v.empty()) return "--in= is empty: give a JSON file";
    a->inputs.push_back(harness::UserPath(v));
  } else if (Value(f, "ceilings", &v)) {
    if (v.empty()) return "--ceilings= is empty: give a ceilings JSON file or leave the flag out";
    a->ceilings_path = harness::UserPath(v);
  } else if (Value(f, "gate", &v)) {
    if (v.empty()) return "--gate= is empty: give tools/gate's summary file or leave the flag out";
    a->gate_path = harness::UserPath(v);
  } else if (Value(f, "note", &v)) {
    a->note = v;
  } else if (Value(f, "history", &v)) {
    if (v.empty()) return "--history= is empty: give a tools/history database or leave the flag out";
    a->history_path = harness::UserPath(v);
  } else if (Value(f, "history_metric", &v)) {
    if (v.empty()) return "--history_metric= is empty: real_time, cpu_time or a counter's name";
    a->history_metric = v;
  } else if (Value(f, "history_case", &v)) {
    a->trends.case_regex = v;
  } else if (Value(f, "max_trends", &v)) {
    if (!ParseMaxTrends(v, &a->trends.max_series))
      return absl::StrCat("--max_trends=", v, " is invalid: an integer in 1..", report::kMostMaxTrends);
  } else if (Value(f, "out", &v)) {
    if (v.empty()) return "--out= is empty: give the folder to write to";
    a->out = harness::UserPath(v);
  } else if (!std::strcmp(f, "--force")) {
    a->force = true;
  } else {
    return absl::StrCat("unknown argument '", f,
                        "' (allowed: --in, --ceilings, --gate, --note, --history, --history_metric, "
                        "--history_case, --max_trends, --out, --force, --help)");
  }
  a->given.push_back(f);
  return "";
}

// The inputs read into `in`; exit status 2 (printed) when one cannot be read, else 0.
int ReadInputs(const Args& a, report::ReportInputs* in) {
  if (!a.inputs.empty()) {
    auto data = report::LoadRuns(a.inputs);
    if (!data.ok()) return Fail("", data.status());
    in->data = std::move(*data);
  }
  if (!a.history_path.empty()) {
    auto trends = report::LoadTrends(a.history_path, a.history_metric, a.trends);
    if (!trends.ok()) return Fail("", trends.status());
    in->trends = std::move(trends->series);
    in->trends_matching = trends->matching;
    in->trend_selection = a.trends;
    in->history_path = a.history_path;
    in->history_metric = a.history_metric;
  }
  if (!a.ceilings_path.empty()) {
    auto c = accounting::ReadCeilings(a.ceilings_path);
    if (!c.ok()) return Fail("--ceilings: ", c.status());
    in->ceilings = *c;
    in->ceilings_path = a.ceilings_path;
  }
  if (!a.gate_path.empty()) {
    auto g = report::ReadGateSummary(a.gate_path);
    if (!g.ok()) return Fail("", g.status());
    in->gate = *g;
  }
  in->note = a.note;
  in->command = absl::StrCat("bazel run //tools:report -- ", absl::StrJoin(a.given, " "));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // `bazel run` starts us in the runfiles tree: every path flag is resolved against the folder
  // the user ran bazel in (harness/user_path.h); the page's command line shows them as typed.
  Args a;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("%s", kUsage);
      return 0;
    }
    if (std::string err = ParseFlag(argv[i], &a); !err.empty()) return Usage(err);
  }
  if (a.inputs.empty() && a.history_path.empty()) return Usage("no --in=RUN.json (or --history=DB) given");
  if (a.out.empty()) return Usage("no --out=DIR given");

  report::ReportInputs in;
  if (int rc = ReadInputs(a, &in); rc != 0) return rc;
  report::Report r = report::BuildReport(in);
  absl::StatusOr<report::FolderWrite> w = report::WriteReport(r, a.out, a.force);
  if (!w.ok()) return Fail("", w.status());
  for (const std::string& n : r.notes) std::fprintf(stderr, "report: note: %s\n", n.c_str());
  for (const std::string& k : r.knees) std::printf("report: %s\n", k.c_str());
  for (const std::string& f : w->replaced)
    std::fprintf(stderr, "report: --force: replaced %s/%s, which report had not written\n", a.out.c_str(),
                 f.c_str());
  for (const std::string& f : w->removed)
    std::fprintf(stderr, "report: removed %s/%s (the earlier report's; this one has none)\n", a.out.c_str(),
                 f.c_str());
  std::vector<std::string> files;
  for (const auto& [name, text] : r.files) files.push_back(name);
  std::printf("report: %zu cases; roof: %s\nreport: wrote %s/{%s} and %s\n", in.data.cases.size(),
              r.roofs.summary.c_str(), a.out.c_str(), absl::StrJoin(files, ",").c_str(),
              report::kManifestName);
  return 0;
}
