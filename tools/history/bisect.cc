// Bisection over git worktrees (bisect.h).
#include "tools/history/bisect.h"

#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/subprocess.h"
#include "tools/gate/gate_io.h"

namespace history {
namespace {

absl::StatusOr<std::string> Git(const std::string& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    std::string cmd = "git";
    for (const std::string& a : args) absl::StrAppend(&cmd, " ", a);
    return absl::FailedPreconditionError(absl::StrCat("'", cmd, "' in '", repo, "' failed (exit ", r->exit_code,
                                                      "): ", absl::StripAsciiWhitespace(r->stderr_text)));
  }
  return std::string(absl::StripAsciiWhitespace(r->stdout_text));
}

enum class Verdict { kGood, kBad };

// Runs the judge in a fresh worktree of `commit`, removed afterwards.
absl::StatusOr<Verdict> Judge(const BisectOptions& o, const std::string& good, const std::string& commit,
                              double* seconds) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp && *tmp ? tmp : "/tmp", "/mlbench-bisect-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) return absl::InternalError("mkdtemp failed for the bisect worktree");
  const std::string tree = dir + "/tree";
  if (auto st = Git(o.repo, {"worktree", "add", "--detach", "--quiet", tree, commit}); !st.ok()) return st.status();
  const std::string script =
      absl::StrCat("export MLBENCH_BISECT_GOOD=", gate::ShellQuote(good), " MLBENCH_BISECT_CANDIDATE=",
                   gate::ShellQuote(commit), " MLBENCH_BISECT_OUT=", gate::ShellQuote(dir), "; cd ",
                   gate::ShellQuote(tree), " && ", o.judge);
  const auto t0 = std::chrono::steady_clock::now();
  // The judge's standard error passes through (tools/bench's progress on a run of minutes); its
  // standard output is kept for the message when it fails.
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess({"/bin/sh", "-c", script}, /*capture_stderr=*/false);
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Git(o.repo, {"worktree", "remove", "--force", tree}).IgnoreError();
  std::error_code ignored;  // best effort: a temp folder left behind is harmless
  std::filesystem::remove_all(dir, ignored);
  if (!r.ok()) return r.status();
  if (r->exit_code == 0) return Verdict::kGood;
  if (r->exit_code == 3) return Verdict::kBad;
  return absl::FailedPreconditionError(absl::StrCat(
      "the judge exited ", r->exit_code, " on commit ", commit, " (0: good, 3: a regression; anything else stops): ",
      harness::Tail(r->stdout_text, 2000)));
}

}  // namespace

absl::StatusOr<BisectResult> Bisect(const BisectOptions& o) {
  auto log = [&o](const std::string& line) {
    if (o.log) o.log(line);
  };
  absl::StatusOr<std::string> good = Git(o.repo, {"rev-parse", "--verify", "--quiet", o.good + "^{commit}"});
  if (!good.ok()) return absl::InvalidArgumentError(absl::StrCat("--good='", o.good, "' is not a commit here"));
  absl::StatusOr<std::string> bad = Git(o.repo, {"rev-parse", "--verify", "--quiet", o.bad + "^{commit}"});
  if (!bad.ok()) return absl::InvalidArgumentError(absl::StrCat("--bad='", o.bad, "' is not a commit here"));
  if (*good == *bad) return absl::InvalidArgumentError("--good and --bad name the same commit");
  if (!Git(o.repo, {"merge-base", "--is-ancestor", *good, *bad}).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--good=", o.good, " (", *good, ") is not an ancestor of --bad=", o.bad, " (", *bad, ")"));
  }
  absl::StatusOr<std::string> list = Git(o.repo, {"rev-list", "--ancestry-path", "--reverse", *good + ".." + *bad});
  if (!list.ok()) return list.status();
  std::vector<std::string> commits = absl::StrSplit(*list, '\n', absl::SkipEmpty());
  BisectResult res;
  res.candidates = static_cast<int>(commits.size());
  log(absl::StrFormat("bisect: %d commits after good %s up to bad %s; judging the bad end first", res.candidates,
                      *good, *bad));
  double seconds = 0;
  absl::StatusOr<Verdict> v = Judge(o, *good, *bad, &seconds);
  ++res.judged;
  if (!v.ok()) return v.status();
  if (*v != Verdict::kBad) {
    return absl::FailedPreconditionError(absl::StrCat("the bad end ", *bad, " is judged good (", seconds,
                                                      " s): no regression to bisect between these commits"));
  }
  log(absl::StrFormat("bisect: bad end %s judged BAD in %.1f s", *bad, seconds));
  // Invariant: commits[lo] is good (lo = -1: the good end), commits[hi] is bad.
  int lo = -1, hi = res.candidates - 1, step = 0;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    v = Judge(o, *good, commits[mid], &seconds);
    ++res.judged;
    if (!v.ok()) return v.status();
    (*v == Verdict::kBad ? hi : lo) = mid;
    log(absl::StrFormat("bisect: step %d: commit %d of %d, %s: %s in %.1f s; the first bad is one of commits %d..%d",
                        ++step, mid + 1, res.candidates, commits[mid], *v == Verdict::kBad ? "BAD" : "good",
                        seconds, lo + 2, hi + 1));
  }
  res.first_bad = commits[hi];
  absl::StatusOr<std::string> subject = Git(o.repo, {"log", "-1", "--format=%s", res.first_bad});
  res.subject = subject.ok() ? *subject : "";
  return res;
}

}  // namespace history
