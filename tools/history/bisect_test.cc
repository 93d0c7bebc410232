// Bisect in a scratch git repository of 8 commits whose "benchmark" (speed.txt, a time) slows
// down by 30% at commit 5: the judge compares the candidate's time with the good commit's.
#include "tools/history/bisect.h"

#include <cstdlib>
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

}  // namespace
}  // namespace history
