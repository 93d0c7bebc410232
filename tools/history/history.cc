// //tools:history: benchmark results over commits in an SQLite file, and the change points in
// them (E-divisive means, tools/history/edivisive.h).
//
//   bazel run //tools:history -- --db=FILE record RUN.json [--commit=REV] [--date=RFC3339] [--repo=DIR]
//   bazel run //tools:history -- --db=FILE list
//   bazel run //tools:history -- --db=FILE detect [--metric=real_time] [--case=REGEX]
//   bazel run //tools:history -- bisect --good=REV --bad=REV [--judge=CMD] [--judge_timeout_s=S]
//
// Exit status (harness/exit_codes.h): 0 success; 1 command line not understood; 2 bad input
// (unreadable or malformed JSON, a run without a machine key or commit, a commit that is not a
// full id and does not resolve, a date that is not RFC 3339, a NaN or Infinity time, a run
// recorded twice, a file that is not one of our databases, a series that does not exist, a flag
// out of range, a bisection that cannot run or whose judge ran past --judge_timeout_s); 3 detect:
// a series' newest segment is a regression. bisect stopped by SIGINT or SIGTERM removes its
// worktree and temporary folder, then dies of the signal (exit status 130 or 143 in a shell).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/user_path.h"
#include "tools/gate/gate_compare.h"
#include "tools/history/bisect.h"
#include "tools/history/edivisive.h"
#include "tools/history/history_db.h"
#include "tools/history/rfc3339.h"
#include "tools/history/run_record.h"

ABSL_FLAG(std::string, db, "",
          "the history database, an SQLite file of tools/history's (required); only record creates one, "
          "where nothing is");
ABSL_FLAG(std::string, commit, "",
          "record: the commit the run measured (default: the run context's build.commit); a full id, or a "
          "revision git resolves in --repo");
ABSL_FLAG(std::string, date, "",
          "record: the run's date (default: the run's own date); RFC 3339 with a zone, e.g. "
          "2026-11-30T12:00:00Z or 2026-11-30T12:00:00-08:00, or a bare date 2026-11-30 (midnight UTC)");
ABSL_FLAG(std::string, metric, "real_time",
          "detect: real_time or cpu_time (lower is better), or a counter: NAME (higher is better), NAME:lower");
ABSL_FLAG(std::string, case, "", "detect: only the cases whose name matches this regular expression (ECMAScript)");
ABSL_FLAG(double, significance, 0.01,
          "detect: a change point is kept when its permutation p-value is below this (0 < s < 1)");
ABSL_FLAG(int32_t, permutations, 499,
          "detect: permutations per test (p-values resolve to 1/(permutations+1)); from the fewest that can "
          "reach --significance (100 for 0.01) to 100000");
ABSL_FLAG(int32_t, min_runs, 3, "detect: runs each segment keeps at least (>= 2)");
ABSL_FLAG(std::string, good, "", "bisect: a commit without the regression (an ancestor of --bad)");
ABSL_FLAG(std::string, bad, "", "bisect: a commit with it");
ABSL_FLAG(std::string, judge, history::kDefaultJudge,
          "bisect: the shell command that judges a candidate, run in a git worktree of it with "
          "MLBENCH_BISECT_GOOD, MLBENCH_BISECT_CANDIDATE and MLBENCH_BISECT_OUT (a scratch folder) exported: "
          "exit 0 good, 3 a regression");
ABSL_FLAG(double, judge_timeout_s, history::kDefaultJudgeTimeoutS,
          "bisect: seconds one judge run may take (1 to 604800); past it the judge's whole process group "
          "gets SIGTERM, then SIGKILL 5 s later, and the bisection stops (exit 2)");
ABSL_FLAG(std::string, repo, "",
          "bisect: the git checkout; record: where a --commit or build.commit that is not a full id is "
          "resolved (default: the workspace bazel run started in, else .)");

namespace {

constexpr char kUsage[] =
    "history: benchmark results over commits in an SQLite file, and the change points in them.\n"
    "\n"
    "  bazel run //tools:history -- --db=FILE record RUN.json [--commit=REV] [--date=RFC3339] [--repo=DIR]\n"
    "  bazel run //tools:history -- --db=FILE list\n"
    "  bazel run //tools:history -- --db=FILE detect [--metric=real_time] [--case=REGEX]\n"
    "  bazel run //tools:history -- bisect --good=REV --bad=REV [--judge=CMD] [--judge_timeout_s=3600]\n"
    "\n"
    "record  takes the JSON of tools/bench, gpt_step, ddp_step, gpt_decode or a micro binary\n"
    "        (--benchmark_out): per case and repetition real_time and cpu_time in seconds and every\n"
    "        counter, under the run's machine key (tools/gate's), commit and date, with its run\n"
    "        context, in one transaction. Repetitions that errored, failed their check or were\n"
    "        DISTURBED are left out (and counted). A NaN or Infinity time refuses the run; a NaN or\n"
    "        Infinity counter is left out with a warning naming it. --commit and --date import old\n"
    "        results. The commit is stored as a full id in lower case: a full id as given, anything\n"
    "        else (HEAD, a short id) resolved by git in --repo, else refused. The date is RFC 3339\n"
    "        with a zone (2026-11-30T12:00:00Z, 2026-11-30T12:00:00-08:00) or a bare date (midnight\n"
    "        UTC), checked field by field and stored in UTC. The same commit, machine and instant\n"
    "        is one run: recorded twice, however spelled, it is refused. Only record creates a\n"
    "        database, where nothing is at --db; the file appears with its first run or not at all.\n"
    "list    the series held: machine key, case, metric, number of runs.\n"
    "detect  per machine key and case, the metric's per-run medians in time order, split by\n"
    "        E-divisive means (Matteson and James 2014, as Hunter/Apache Otava and MongoDB's CI\n"
    "        use) with a permutation test; each change point with its full commit, date, the\n"
    "        medians before and after, the change in % and its p-value. Exit 3 when a series'\n"
    "        newest segment is worse than the one before it (a regression still in place).\n"
    "bisect  finds the first bad commit between --good and --bad, as Chromium's Pinpoint does on\n"
    "        one machine: each candidate is judged in a git worktree of it, by default an A/B of it\n"
    "        against --good (tools/bench --quick --against, then tools/gate: exit 3 on a\n"
    "        regression); the bad end is judged first; every step is printed. The judge's output\n"
    "        streams through (never held whole); it runs in its own process group, which is ended\n"
    "        (SIGTERM, then SIGKILL 5 s later) past --judge_timeout_s (default 3600 s) or on\n"
    "        SIGINT/SIGTERM. Its worktree and temporary folder are removed whatever happens; on\n"
    "        SIGINT/SIGTERM history then dies of the signal (exit status 130 or 143).\n"
    "\n"
    "A file that is not one of history's databases (a folder, 0 bytes, not SQLite, another\n"
    "schema) is refused after reading it read-only, before anything is written to it. The\n"
    "database runs in WAL mode: several writers may record at once, a writer killed mid-record\n"
    "leaves either its whole run or none of it, and list and detect never wait for a writer.\n"
    "Exit status: 0 success; 1 command line not understood; 2 bad input; 3 detect found a\n"
    "regression in the newest segment.\n";

int Bad(const absl::Status& s) { return harness::Fail("history", s); }

std::string Value(double v, const gate::Metric& m) {
  if (!m.is_time()) return absl::StrFormat("%.6g", v);
  if (v >= 1) return absl::StrFormat("%.4g s", v);
  if (v >= 1e-3) return absl::StrFormat("%.4g ms", v * 1e3);
  if (v >= 1e-6) return absl::StrFormat("%.4g us", v * 1e6);
  return absl::StrFormat("%.4g ns", v * 1e9);
}

// --repo, else the workspace `bazel run` started in, else the working directory.
std::string Repo() {
  if (!absl::GetFlag(FLAGS_repo).empty()) return harness::UserPath(absl::GetFlag(FLAGS_repo));
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  return ws && *ws ? ws : ".";
}

int Record(const std::string& db_path, const std::vector<char*>& args) {
  if (args.size() != 3) return Bad(absl::InvalidArgumentError("record takes one file: record RUN.json"));
  const std::string path = harness::UserPath(args[2]);
  history::RecordOptions o;
  const std::string repo = Repo();
  o.resolve_commit = [repo](const std::string& rev) { return history::ResolveCommit(repo, rev); };
  // The flags first: a bad --date or --commit is refused before the file is read.
  if (!absl::GetFlag(FLAGS_date).empty()) {
    absl::StatusOr<std::string> date = history::NormalizeDate(absl::GetFlag(FLAGS_date));
    if (!date.ok()) return Bad(absl::InvalidArgumentError(absl::StrCat("--date=", date.status().message())));
    o.date = *date;
  }
  if (!absl::GetFlag(FLAGS_commit).empty()) {
    absl::StatusOr<std::string> commit = history::NormalizeCommit(absl::GetFlag(FLAGS_commit), "--commit", o.resolve_commit);
    if (!commit.ok()) return Bad(commit.status());
    o.commit = *commit;
  }
  absl::StatusOr<history::ParsedRun> run = history::ReadRunFile(path, o);
  if (!run.ok()) return Bad(run.status());
  const size_t shown = std::min<size_t>(run->dropped.size(), 10);
  for (size_t i = 0; i < shown; ++i) {
    std::fprintf(stderr, "history: warning: '%s': %s: not a number, left out (the rest of the run is recorded)\n",
                 path.c_str(), run->dropped[i].c_str());
  }
  if (run->dropped.size() > shown) {
    std::fprintf(stderr, "history: warning: '%s': %zu more NaN or Infinity counters left out\n", path.c_str(),
                 run->dropped.size() - shown);
  }
  absl::StatusOr<int64_t> id = history::HistoryDb::RecordAt(db_path, run->record);
  if (!id.ok()) return Bad(id.status());
  std::set<std::string> cases;
  for (const history::ResultRow& r : run->record.rows) cases.insert(r.case_name);
  std::printf("history: recorded run %lld: %zu cases, %zu values, commit %s, date %s, machine %s (%s)%s%s\n",
              static_cast<long long>(*id), cases.size(), run->record.rows.size(), run->record.commit.c_str(),
              run->record.date.c_str(), run->record.machine_hash.c_str(), run->record.machine_description.c_str(),
              run->left_out ? absl::StrCat("; left out ", run->left_out,
                                           " repetitions that errored, failed their check or were DISTURBED")
                                  .c_str()
                            : "",
              run->dropped.empty() ? "" : absl::StrCat("; left out ", run->dropped.size(), " NaN or Infinity counter values").c_str());
  return harness::kExitOk;
}

int List(history::HistoryDb& db) {
  absl::StatusOr<std::vector<history::SeriesKey>> series = db.ListSeries();
  if (!series.ok()) return Bad(series.status());
  std::string machine;
  for (const history::SeriesKey& s : *series) {
    if (s.machine_hash != machine) {
      machine = s.machine_hash;
      std::printf("machine %s: %s\n", s.machine_hash.c_str(), s.machine_description.c_str());
    }
    std::printf("  %-60s %-24s %lld runs\n", s.case_name.c_str(), s.metric.c_str(), static_cast<long long>(s.runs));
  }
  if (series->empty()) std::printf("history: '%s' holds no results yet\n", db.path().c_str());
  return harness::kExitOk;
}

int RunBisect() {
  history::BisectOptions o;
  o.good = absl::GetFlag(FLAGS_good);
  o.bad = absl::GetFlag(FLAGS_bad);
  o.judge = absl::GetFlag(FLAGS_judge);
  o.judge_timeout_s = absl::GetFlag(FLAGS_judge_timeout_s);
  if (o.good.empty() || o.bad.empty()) return Bad(absl::InvalidArgumentError("bisect needs --good=REV and --bad=REV"));
  o.repo = Repo();
  o.log = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  // SIGINT / SIGTERM end the judge and its worktree first (bisect.h), then this process.
  history::CatchStopSignals();
  o.interrupted = history::StopSignal;
  absl::StatusOr<history::BisectResult> r = history::Bisect(o);
  if (history::StopSignal() != 0) {
    Bad(r.ok() ? absl::CancelledError("stopped by a signal") : r.status());
    history::DieOfStopSignal();
  }
  if (!r.ok()) return Bad(r.status());
  std::printf("bisect: first bad commit: %s %s (%d judge runs over %d candidates)\n", r->first_bad.c_str(),
              r->subject.c_str(), r->judged, r->candidates);
  return harness::kExitOk;
}

// detect's flags, before the database is opened.
absl::Status CheckDetectFlags() {
  const double significance = absl::GetFlag(FLAGS_significance);
  if (!(significance > 0 && significance < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--significance=", significance, " is out of range: allowed 0 < s < 1 (e.g. 0.01)"));
  }
  const int permutations = absl::GetFlag(FLAGS_permutations);
  const int least = history::MinPermutations(significance);
  if (least > history::kMaxPermutations) {
    return absl::InvalidArgumentError(absl::StrCat("--significance=", significance, " needs more than ",
                                                   history::kMaxPermutations, " permutations; allowed down to ",
                                                   1.0 / history::kMaxPermutations));
  }
  if (permutations < least || permutations > history::kMaxPermutations) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--permutations=", permutations, " is out of range: allowed ", least, " to ", history::kMaxPermutations,
        " (at --significance=", significance, " fewer than ", least, " cannot give a p-value below it; more than ",
        history::kMaxPermutations, " only costs time)"));
  }
  if (absl::GetFlag(FLAGS_min_runs) < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--min_runs=", absl::GetFlag(FLAGS_min_runs), " is out of range: allowed 2 or more"));
  }
  return absl::OkStatus();
}

int Detect(history::HistoryDb& db) {
  absl::StatusOr<gate::Metric> metric = gate::ParseMetric(absl::GetFlag(FLAGS_metric));
  if (!metric.ok()) return Bad(metric.status());
  std::regex filter;
  try {
    filter = std::regex(absl::GetFlag(FLAGS_case), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Bad(absl::InvalidArgumentError(absl::StrCat("--case='", absl::GetFlag(FLAGS_case), "': ", e.what())));
  }
  history::EDivisiveOptions o;
  o.significance = absl::GetFlag(FLAGS_significance);
  o.permutations = absl::GetFlag(FLAGS_permutations);
  o.min_size = absl::GetFlag(FLAGS_min_runs);
  absl::StatusOr<std::vector<history::SeriesKey>> series = db.ListSeries();
  if (!series.ok()) return Bad(series.status());
  int examined = 0, with_changes = 0, regressions = 0;
  for (const history::SeriesKey& key : *series) {
    if (key.metric != metric->name || !std::regex_search(key.case_name, filter)) continue;
    absl::StatusOr<std::vector<history::SeriesPoint>> points = db.LoadSeries(key.machine_hash, key.case_name, key.metric);
    if (!points.ok()) return Bad(points.status());
    ++examined;
    std::vector<double> medians;
    for (const history::SeriesPoint& p : *points) medians.push_back(history::Median(p.values));
    absl::StatusOr<std::vector<history::ChangePoint>> cps = history::EDivisive(medians, o);
    if (!cps.ok()) return Bad(absl::InvalidArgumentError(absl::StrCat(key.case_name, ": ", cps.status().message())));
    if (cps->empty()) continue;
    ++with_changes;
    std::printf("%s %s on machine %s (%s): %zu change point%s over %zu runs\n", key.case_name.c_str(),
                key.metric.c_str(), key.machine_hash.c_str(), key.machine_description.c_str(), cps->size(),
                cps->size() == 1 ? "" : "s", medians.size());
    const std::vector<history::SegmentChange> changes =
        history::DescribeChanges(medians, *cps, metric->higher_is_better);
    for (size_t i = 0; i < changes.size(); ++i) {
      const history::SegmentChange& c = changes[i];
      const bool newest = i + 1 == changes.size();
      if (newest && c.worse) ++regressions;
      const history::SeriesPoint& p = (*points)[c.index];
      std::printf("  at run %d of %zu: commit %s, %s: median %s -> %s (%+.1f%%), p = %.3g%s\n", c.index + 1,
                  medians.size(), p.commit.c_str(), p.date.c_str(), Value(c.before, *metric).c_str(),
                  Value(c.after, *metric).c_str(), 100 * c.change, c.p_value,
                  c.worse ? (newest ? "  REGRESSION (newest segment)" : "  regression") : "  improvement");
    }
  }
  if (examined == 0) {
    return Bad(absl::NotFoundError(absl::StrCat("no series in '", db.path(), "' has the metric ", metric->name,
                                                absl::GetFlag(FLAGS_case).empty() ? "" : " and a case matching --case",
                                                " (tools/history list shows what it holds)")));
  }
  std::printf("history: %d series examined, %d with change points, %d with a regression in the newest segment\n",
              examined, with_changes, regressions);
  return regressions ? harness::kExitRegression : harness::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args = harness::ParseFlagsOrExit(argc, argv, kUsage);
  if (args.size() < 2) {
    return Bad(absl::InvalidArgumentError("give a command: record, list, detect or bisect (--help)"));
  }
  const std::string cmd = args[1];
  if (cmd != "record" && cmd != "list" && cmd != "detect" && cmd != "bisect") {
    return Bad(absl::InvalidArgumentError(
        absl::StrCat("unknown command '", cmd, "'; commands: record, list, detect, bisect")));
  }
  if (cmd != "record" && args.size() != 2) {
    return Bad(absl::InvalidArgumentError(absl::StrCat(cmd, " takes no arguments, got '", args[2], "'")));
  }
  if (cmd == "bisect") return RunBisect();
  const std::string path = absl::GetFlag(FLAGS_db).empty() ? "" : harness::UserPath(absl::GetFlag(FLAGS_db));
  if (path.empty()) return Bad(absl::InvalidArgumentError("--db=FILE is required"));
  if (cmd == "record") return Record(path, args);
  if (cmd == "detect") {
    if (absl::Status st = CheckDetectFlags(); !st.ok()) return Bad(st);
  }
  // Reading never creates nor changes a database: a mistyped path or another file is an error.
  absl::StatusOr<std::unique_ptr<history::HistoryDb>> db = history::HistoryDb::Open(path, history::Access::kRead);
  if (!db.ok()) return Bad(db.status());
  if (cmd == "list") return List(**db);
  return Detect(**db);
}
