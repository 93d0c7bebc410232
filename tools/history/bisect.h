// Bisection of a performance regression over commits, as Chromium's Pinpoint does on one machine:
// between a good and a bad commit, each candidate is judged by a command run in a git worktree
// of it (by default an A/B of the candidate against the good commit: tools/bench --against, then
// tools/gate, exit 3 on a regression), and the search narrows to the first bad commit. The bad
// end is judged first: a regression it does not reproduce is not bisected.
//
// The judge runs under /bin/sh in the candidate's worktree with MLBENCH_BISECT_GOOD (the good
// commit's full id) and MLBENCH_BISECT_CANDIDATE exported: exit 0 good, 3 bad (a regression),
// anything else stops the bisection with the commit and the end of the judge's standard output
// (its standard error passes through, so a long judge shows its progress).
#ifndef TOOLS_HISTORY_BISECT_H_
#define TOOLS_HISTORY_BISECT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace history {

inline constexpr char kDefaultJudge[] =
    "bazel run //tools:bench -- --quick --repetitions=9 --against=\"$MLBENCH_BISECT_GOOD\" "
    "--out=\"$MLBENCH_BISECT_OUT/ab.json\" && "
    "bazel run //tools:gate -- --current=\"$MLBENCH_BISECT_OUT/ab.json\" "
    "--against=\"$MLBENCH_BISECT_OUT/ab.base.json\" --threshold=0.10";

struct BisectOptions {
  std::string repo;        // a git checkout
  std::string good, bad;   // revisions; good must be an ancestor of bad
  std::string judge = kDefaultJudge;
  std::function<void(const std::string&)> log;  // one line per step; may be empty
};

struct BisectResult {
  std::string first_bad;  // full commit id
  std::string subject;    // its first line
  int judged = 0;         // judge runs, the bad end's included
  int candidates = 0;     // commits after good up to bad
};

absl::StatusOr<BisectResult> Bisect(const BisectOptions& o);

}  // namespace history

#endif  // TOOLS_HISTORY_BISECT_H_
