// Bisection of a performance regression over commits, as Chromium's Pinpoint does on one machine:
// between a good and a bad commit, each candidate is judged by a command run in a git worktree
// of it (by default an A/B of the candidate against the good commit: tools/bench --against, then
// tools/gate, exit 3 on a regression), and the search narrows to the first bad commit. The bad
// end is judged first: a regression it does not reproduce is not bisected.
//
// The judge runs under /bin/sh in the candidate's worktree, in a process group of its own, with
// MLBENCH_BISECT_GOOD (the good commit's full id), MLBENCH_BISECT_CANDIDATE and MLBENCH_BISECT_OUT
// (a scratch folder) exported and its standard input from /dev/null: exit 0 good, 3 bad (a
// regression), anything else stops the bisection with the commit and the last 2000 characters of
// the judge's standard output. Its standard output streams to BisectOptions::judge_output as it
// comes (the tool's standard output), never held whole; its standard error passes through.
//
// A judge that runs past judge_timeout_s, or a stop (BisectOptions::interrupted: SIGINT or SIGTERM
// in the tool), ends its whole process group (SIGTERM, then SIGKILL after kJudgeGraceS seconds).
// Whatever ends a judge run, its worktree is removed (`git worktree remove --force`, then `git
// worktree prune`) and its temporary folder deleted. When the judge's shell exits, anything it
// left running in its process group is killed.
#ifndef TOOLS_HISTORY_BISECT_H_
#define TOOLS_HISTORY_BISECT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace history {

inline constexpr char kDefaultJudge[] =
    "bazel run //tools:bench -- --quick --repetitions=9 --against=\"$MLBENCH_BISECT_GOOD\" "
    "--out=\"$MLBENCH_BISECT_OUT/ab.json\" && "
    "bazel run //tools:gate -- --current=\"$MLBENCH_BISECT_OUT/ab.json\" "
    "--against=\"$MLBENCH_BISECT_OUT/ab.base.json\" --threshold=0.10";

// One judge run may take this long by default (the default judge, a build and 9 A/B rounds of the
// quick suite, took 447 s on a 2-core VM), and at most kMaxJudgeTimeoutS (a week).
inline constexpr double kDefaultJudgeTimeoutS = 3600;
inline constexpr double kMinJudgeTimeoutS = 1;
inline constexpr double kMaxJudgeTimeoutS = 7 * 24 * 3600;
// Between SIGTERM and SIGKILL to a judge's process group.
inline constexpr int kJudgeGraceS = 5;

struct BisectOptions {
  std::string repo;        // a git checkout
  std::string good, bad;   // revisions; good must be an ancestor of bad
  std::string judge = kDefaultJudge;
  double judge_timeout_s = kDefaultJudgeTimeoutS;
  std::function<void(const std::string&)> log;  // one line per step; may be empty
  // The judge's standard output, piece by piece; empty: this process's standard output.
  std::function<void(absl::string_view)> judge_output;
  // Asked every 100 ms while a judge runs, and between steps: a non-zero answer (a signal number)
  // stops the bisection, which returns Cancelled naming it. May be empty.
  std::function<int()> interrupted;
};

struct BisectResult {
  std::string first_bad;  // full commit id
  std::string subject;    // its first line
  int judged = 0;         // judge runs, the bad end's included
  int candidates = 0;     // commits after good up to bad
};

absl::StatusOr<BisectResult> Bisect(const BisectOptions& o);

// The full id of the commit `rev` names in the git checkout `repo` (`git rev-parse --verify
// REV^{commit}`, lower case); an error with git's reason when it names none.
absl::StatusOr<std::string> ResolveCommit(const std::string& repo, const std::string& rev);

// From now on SIGINT and SIGTERM only note their number (StopSignal() returns the first), so that
// a bisection can end its judge and remove its worktree; the caller then dies of the signal with
// DieOfStopSignal. A signal that was ignored (nohup) stays ignored.
void CatchStopSignals();
int StopSignal();
// Restores the default action of StopSignal()'s signal and raises it: the process ends as the
// signal would have ended it (exit status 130 for SIGINT, 143 for SIGTERM in a shell).
[[noreturn]] void DieOfStopSignal();

}  // namespace history

#endif  // TOOLS_HISTORY_BISECT_H_
