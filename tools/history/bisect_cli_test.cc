// `history bisect` end to end, in a scratch repository of two commits: a judge that hangs is ended
// at --judge_timeout_s (exit 2); Ctrl-C (SIGINT to the tool's process group) or SIGTERM while the
// judge runs ends the judge, removes the worktree and the temporary folder, and the tool dies of
// the signal; a judge that prints 192 MiB passes it through without the tool holding it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"

namespace {

std::string Exe() { return absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/tools/history/history"); }
std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return absl::StrCat(d ? d : "/tmp", "/", name);
}

std::string Sh(const std::string& script) {
  auto r = harness::RunProcess({"/bin/sh", "-c", script}, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok() && r->exit_code == 0) << script << "\n" << (r.ok() ? r->stderr_text : "");
  return r.ok() ? std::string(absl::StripAsciiWhitespace(r->stdout_text)) : "";
}

// A repository of two commits; the folder TMPDIR points at for the tool, empty.
struct Scratch {
  std::string repo, tmp;
};
Scratch MakeScratch(const std::string& name) {
  Scratch s{Tmp(name + "_repo"), Tmp(name + "_tmp")};
  Sh(absl::StrCat("rm -rf '", s.repo, "' '", s.tmp, "' && mkdir -p '", s.repo, "' '", s.tmp, "' && cd '", s.repo,
                  "' && git init -q && git config user.email t@example.com && git config user.name t && "
                  "echo 1 > f && git add f && git commit -q -m one && echo 2 > f && git commit -q -am two"));
  return s;
}

int Worktrees(const std::string& repo) { return std::stoi(Sh(absl::StrCat("git -C '", repo, "' worktree list | wc -l"))); }

// The tool, started in a session (so a process group) of its own with TMPDIR set and its output
// to files; default dispositions for SIGINT and SIGTERM, as a shell in a terminal gives them.
pid_t Start(const Scratch& s, const std::vector<std::string>& flags, const std::string& out) {
  std::vector<std::string> args = {Exe(), "bisect", "--repo=" + s.repo, "--good=HEAD~1", "--bad=HEAD"};
  args.insert(args.end(), flags.begin(), flags.end());
  const std::string tmpdir = "TMPDIR=" + s.tmp;
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    putenv(const_cast<char*>(tmpdir.c_str()));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits up to `seconds` for `pid`; its wait status and resource use, or -1 when it did not end
// (it is then killed).
int Wait(pid_t pid, double seconds, struct rusage* ru = nullptr) {
  struct rusage ignored;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (wait4(pid, &status, WNOHANG, ru ? ru : &ignored) == pid) return status;
    usleep(20000);
  }
  kill(pid, SIGKILL);
  int status = 0;
  wait4(pid, &status, 0, ru ? ru : &ignored);
  return -1;
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

pid_t ReadPid(const std::string& path) {
  std::ifstream f(path);
  long pid = 0;
  f >> pid;
  return static_cast<pid_t>(pid);
}

// Whether `pid` is gone (or a zombie about to be reaped by init), polled up to 5 s.
bool Gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    std::getline(stat, line);
    if (line.find(") Z ") != std::string::npos) return true;
    usleep(50000);
  }
  return false;
}

TEST(BisectCli, AHangingJudgeIsEndedAtTheTimeout) {
  const Scratch s = MakeScratch("hang");
  const std::string out = Tmp("hang.out");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = Start(s, {"--judge=sleep 100000", "--judge_timeout_s=1"}, out);
  const int status = Wait(pid, 30);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(status, -1) << "bisect did not end: " << Read(out);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 2) << Read(out);
  EXPECT_NE(Read(out).find("the judge ran past --judge_timeout_s=1 on commit"), std::string::npos) << Read(out);
  EXPECT_LT(took, 20.0);
  EXPECT_EQ(Worktrees(s.repo), 1);
  EXPECT_TRUE(std::filesystem::is_empty(s.tmp));
}

// SIGINT as Ctrl-C sends it (to the tool's whole foreground process group; the judge runs in a
// group of its own, so the tool ends it) and SIGTERM to the tool alone.
TEST(BisectCli, SigintOrSigtermRemoveTheWorktreeAndTheTemporaryFolder) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const Scratch s = MakeScratch(absl::StrCat("sig", sig));
    const std::string out = Tmp(absl::StrCat("sig", sig, ".out"));
    const std::string pid_file = Tmp(absl::StrCat("sig", sig, ".pid"));
    std::remove(pid_file.c_str());
    const pid_t pid = Start(s, {absl::StrCat("--judge=echo $$ > '", pid_file, "'; exec sleep 100000")}, out);
    pid_t judge = 0;
    for (int i = 0; i < 300 && judge == 0; ++i) {
      usleep(50000);
      judge = ReadPid(pid_file);
    }
    ASSERT_GT(judge, 0) << "the judge never started: " << Read(out);
    EXPECT_EQ(Worktrees(s.repo), 2);  // the candidate's worktree is there while the judge runs
    EXPECT_FALSE(std::filesystem::is_empty(s.tmp));
    if (sig == SIGINT) {
      kill(-pid, SIGINT);
    } else {
      kill(pid, SIGTERM);
    }
    const int status = Wait(pid, 30);
    ASSERT_NE(status, -1) << "bisect did not end on signal " << sig << ": " << Read(out);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status << ": " << Read(out);
    EXPECT_NE(Read(out).find("its worktree and temporary folder are removed"), std::string::npos) << Read(out);
    EXPECT_EQ(Worktrees(s.repo), 1) << "signal " << sig;
    EXPECT_TRUE(std::filesystem::is_empty(s.tmp)) << "signal " << sig;
    EXPECT_TRUE(Gone(judge)) << "the judge outlived the bisection";
  }
}

// 192 MiB of judge output goes through to the tool's standard output; the tool's peak memory
// stays far below it (before, all of it was collected in one string; 3 GB aborted with
// std::bad_alloc).
TEST(BisectCli, AJudgesOutputStreamsThrough) {
  const Scratch s = MakeScratch("loud");
  const std::string out = Tmp("loud.out");
  struct rusage ru;
  const pid_t pid = Start(s, {"--judge=head -c 201326592 /dev/zero; exit 3"}, out);
  const int status = Wait(pid, 60, &ru);
  ASSERT_NE(status, -1);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);  // one candidate, judged bad: the first bad commit
  EXPECT_GE(std::filesystem::file_size(out), 201326592u);
  std::remove(out.c_str());
  EXPECT_LT(ru.ru_maxrss, 96 * 1024) << "peak memory " << ru.ru_maxrss << " KiB for 192 MiB of judge output";
  EXPECT_EQ(Worktrees(s.repo), 1);
}

}  // namespace
