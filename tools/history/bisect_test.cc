// Bisect in a scratch git repository of 8 commits whose "benchmark" (speed.txt, a time) slows
// down by 30% at commit 5: the judge compares the candidate's time with the good commit's. A judge
// that hangs is ended at --judge_timeout_s, a stop ends it too, its output streams through in
// bounded memory, and no worktree or temporary folder is left behind in any case.
#include "tools/history/bisect.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"

namespace history {
namespace {

// Exit 3 when the candidate's time is more than 10% above the good commit's.
constexpr char kJudge[] =
    "t=$(cat speed.txt); g=$(git show \"$MLBENCH_BISECT_GOOD:speed.txt\"); "
    "test -d \"$MLBENCH_BISECT_OUT\" || exit 9; "
    "if [ $((t * 100)) -gt $((g * 110)) ]; then exit 3; fi; exit 0";

std::string Sh(const std::string& script) {
  auto r = harness::RunProcess({"/bin/sh", "-c", script}, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0) << script << "\n" << r->stderr_text;
  return std::string(absl::StripAsciiWhitespace(r->stdout_text));
}

// The scratch repository; its 8 commits, oldest first.
std::vector<std::string> MakeRepo(const std::string& repo, int slow_from) {
  Sh(absl::StrCat("rm -rf '", repo, "' && mkdir -p '", repo, "' && cd '", repo,
                  "' && git init -q && git config user.email t@example.com && git config user.name t"));
  for (int i = 1; i <= 8; ++i) {
    Sh(absl::StrCat("cd '", repo, "' && echo ", i >= slow_from ? 130 : 100, " > speed.txt && echo ", i,
                    " > n.txt && git add -A && git commit -q -m 'commit ", i, "'"));
  }
  std::vector<std::string> ids = absl::StrSplit(Sh(absl::StrCat("git -C '", repo, "' rev-list --reverse HEAD")), '\n');
  EXPECT_EQ(ids.size(), 8u);
  return ids;
}

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return absl::StrCat(d ? d : "/tmp", "/", name);
}

TEST(Bisect, FindsTheCommitThatSlowedDown) {
  for (int slow_from : {2, 5, 8}) {
    const std::string repo = Tmp(absl::StrCat("repo", slow_from));
    const std::vector<std::string> ids = MakeRepo(repo, slow_from);
    std::vector<std::string> lines;
    BisectOptions o;
    o.repo = repo;
    o.good = ids[0];
    o.bad = "HEAD";
    o.judge = kJudge;
    o.log = [&lines](const std::string& l) { lines.push_back(l); };
    auto r = Bisect(o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->first_bad, ids[slow_from - 1]) << "slow from commit " << slow_from;
    EXPECT_EQ(r->subject, absl::StrCat("commit ", slow_from));
    EXPECT_EQ(r->candidates, 7);
    EXPECT_LE(r->judged, 4);  // the bad end + ceil(log2 7)
    EXPECT_EQ(lines.size(), static_cast<size_t>(r->judged) + 1);  // the plan, then one line per judge run
    // No worktree is left behind.
    EXPECT_EQ(Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l")), "1");
  }
}

TEST(Bisect, RefusesWhatCannotBeBisected) {
  const std::string repo = Tmp("refuse");
  const std::vector<std::string> ids = MakeRepo(repo, 5);
  BisectOptions o;
  o.repo = repo;
  o.judge = kJudge;
  o.good = ids[7];
  o.bad = ids[0];
  auto reversed = Bisect(o);
  ASSERT_FALSE(reversed.ok());
  EXPECT_NE(reversed.status().message().find("is not an ancestor"), std::string::npos) << reversed.status();

  o.good = "no-such-rev";
  o.bad = "HEAD";
  EXPECT_NE(Bisect(o).status().message().find("--good='no-such-rev' is not a commit"), std::string::npos);

  o.good = ids[0];
  o.bad = ids[3];  // before the slowdown: the bad end is good
  auto not_bad = Bisect(o);
  ASSERT_FALSE(not_bad.ok());
  EXPECT_NE(not_bad.status().message().find("judged good"), std::string::npos) << not_bad.status();

  o.bad = "HEAD";
  o.judge = "echo broken; exit 7";
  auto broken = Bisect(o);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("the judge exited 7 on commit " + ids[7]), std::string::npos)
      << broken.status();
  EXPECT_NE(broken.status().message().find("broken"), std::string::npos);
  EXPECT_EQ(Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l")), "1");
}

// The judge's process id, written by the judge into `path`; 0 until it is there.
pid_t ReadPid(const std::string& path) {
  std::ifstream f(path);
  long pid = 0;
  f >> pid;
  return static_cast<pid_t>(pid);
}

// Whether `pid` is gone (reaped, or a zombie left to init), polled for up to 5 s.
bool Gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string s;
    std::getline(stat, s);
    if (s.find(") Z ") != std::string::npos) return true;
    usleep(50000);
  }
  return false;
}

// A private TMPDIR, so that what the bisection leaves in it can be seen.
std::string FreshTmpDir(const std::string& name) {
  const std::string dir = Tmp(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  setenv("TMPDIR", dir.c_str(), 1);
  return dir;
}

bool Empty(const std::string& dir) { return std::filesystem::is_empty(dir); }

// A judge that never ends ('sleep 100000') is ended at judge_timeout_s with its process group:
// the bisection stops with the commit and the limit, in about the limit, and nothing is left.
TEST(Bisect, AJudgePastItsTimeoutIsEndedWithItsProcessGroup) {
  const std::string repo = Tmp("timeout");
  const std::vector<std::string> ids = MakeRepo(repo, 5);
  const std::string tmp = FreshTmpDir("timeout_tmp");
  const std::string pid_file = Tmp("timeout.pid");
  std::remove(pid_file.c_str());
  BisectOptions o;
  o.repo = repo;
  o.good = ids[0];
  o.bad = ids[7];
  // The shell waits for a child in the background: both must end, not only the shell.
  o.judge = absl::StrCat("sleep 100000 & echo $! > '", pid_file, "'; echo waiting; wait");
  o.judge_timeout_s = 1;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = Bisect(o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status().message().find("the judge ran past --judge_timeout_s=1 on commit " + ids[7]), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("waiting"), std::string::npos) << r.status();  // the end of its output
  EXPECT_LT(took, 1 + kJudgeGraceS + 10.0);
  const pid_t sleeper = ReadPid(pid_file);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(Gone(sleeper)) << "the judge's background child " << sleeper << " outlived it";
  EXPECT_EQ(Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l")), "1");
  EXPECT_TRUE(Empty(tmp));

  o.judge_timeout_s = 0;
  EXPECT_NE(Bisect(o).status().message().find("--judge_timeout_s=0 is out of range: allowed 1 to 604800"),
            std::string::npos);
}

// A stop (SIGINT or SIGTERM in the tool) while the judge runs: its process group is ended, its
// worktree and temporary folder removed, and Bisect returns Cancelled naming the signal.
TEST(Bisect, AStopEndsTheJudgeAndRemovesItsWorktree) {
  const std::string repo = Tmp("stop");
  const std::vector<std::string> ids = MakeRepo(repo, 5);
  const std::string tmp = FreshTmpDir("stop_tmp");
  const std::string pid_file = Tmp("stop.pid");
  std::remove(pid_file.c_str());
  BisectOptions o;
  o.repo = repo;
  o.good = ids[0];
  o.bad = ids[7];
  o.judge = absl::StrCat("echo $$ > '", pid_file, "'; exec sleep 100000");
  bool worktree_seen = false;
  o.interrupted = [&]() {
    if (ReadPid(pid_file) == 0) return 0;  // the judge is not there yet
    worktree_seen = Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l")) == "2" && !Empty(tmp);
    return SIGINT;
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto r = Bisect(o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled);
  EXPECT_NE(r.status().message().find("stopped by SIGINT while judging commit " + ids[7]), std::string::npos)
      << r.status();
  EXPECT_LT(took, 30.0);
  EXPECT_TRUE(worktree_seen) << "the stop came before the judge's worktree existed";
  const pid_t judge = ReadPid(pid_file);
  ASSERT_GT(judge, 0);
  EXPECT_TRUE(Gone(judge));
  EXPECT_EQ(Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l")), "1");
  EXPECT_TRUE(Empty(tmp));
}

// 64 MiB of judge output reaches the sink piece by piece, in order, and is never held whole: this
// process's peak memory grows by far less than the output (it grew by all of it, and a 3 GB
// output aborted with std::bad_alloc, when the output was collected into one string).
TEST(Bisect, TheJudgesOutputStreamsInBoundedMemory) {
  const std::string repo = Tmp("loud");
  const std::vector<std::string> ids = MakeRepo(repo, 2);
  BisectOptions o;
  o.repo = repo;
  o.good = ids[6];
  o.bad = ids[7];
  o.judge = "head -c 67108864 /dev/zero | tr '\\0' x; echo; echo the-last-line; exit 7";
  size_t bytes = 0;
  int pieces = 0;
  o.judge_output = [&](absl::string_view piece) {
    bytes += piece.size();
    ++pieces;
  };
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  auto r = Bisect(o);
  getrusage(RUSAGE_SELF, &after);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the judge exited 7"), std::string::npos) << r.status().message().substr(0, 200);
  EXPECT_NE(r.status().message().find("the-last-line"), std::string::npos);  // the tail is kept
  EXPECT_LT(r.status().message().size(), 4000u);                             // and only the tail
  EXPECT_EQ(bytes, 67108864u + 1 + 14);
  EXPECT_GT(pieces, 1);
  const long grew_kb = after.ru_maxrss - before.ru_maxrss;
  EXPECT_LT(grew_kb, 16 * 1024) << "peak memory grew by " << grew_kb << " KiB for 64 MiB of output";
}

}  // namespace
}  // namespace history
