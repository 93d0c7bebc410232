// Bisection over git worktrees (bisect.h).
#include "tools/history/bisect.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/subprocess.h"
#include "tools/gate/gate_io.h"

namespace history {
namespace {

using Clock = std::chrono::steady_clock;

// ---- Stop signals ----

volatile sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int sig) {
  if (g_stop_signal == 0) g_stop_signal = sig;
}

std::string SignalName(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return absl::StrCat("signal ", sig);
}

int Stopped(const BisectOptions& o) { return o.interrupted ? o.interrupted() : 0; }

// ---- git ----

absl::StatusOr<std::string> Git(const std::string& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    std::string cmd = "git";
    for (const std::string& a : args) absl::StrAppend(&cmd, " ", a);
    return absl::FailedPreconditionError(absl::StrCat("'", cmd, "' in '", repo, "' failed (exit ", r->exit_code,
                                                      ")", r->stderr_text.empty() ? "" : ": ",
                                                      absl::StripAsciiWhitespace(r->stderr_text)));
  }
  return std::string(absl::StripAsciiWhitespace(r->stdout_text));
}

// A detached worktree of one commit in a fresh temporary folder; the destructor removes both
// (`git worktree remove --force`, the folder, then `git worktree prune` for what remove missed).
class Worktree {
 public:
  static absl::StatusOr<std::unique_ptr<Worktree>> Add(const std::string& repo, const std::string& commit) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = absl::StrCat(tmp && *tmp ? tmp : "/tmp", "/mlbench-bisect-XXXXXX");
    if (mkdtemp(dir.data()) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot make a folder for the bisect worktree (", dir,
                                              "): ", std::strerror(errno)));
    }
    std::unique_ptr<Worktree> w(new Worktree(repo, dir));
    if (auto st = Git(repo, {"worktree", "add", "--detach", "--quiet", w->tree(), commit}); !st.ok()) {
      return st.status();
    }
    return w;
  }
  ~Worktree() {
    Git(repo_, {"worktree", "remove", "--force", tree()}).IgnoreError();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    Git(repo_, {"worktree", "prune"}).IgnoreError();
  }
  const std::string& dir() const { return dir_; }
  std::string tree() const { return dir_ + "/tree"; }

 private:
  Worktree(std::string repo, std::string dir) : repo_(std::move(repo)), dir_(std::move(dir)) {}
  std::string repo_, dir_;
};

// ---- The judge's process ----

constexpr size_t kTail = 2000;  // characters of the judge's output kept for an error message

// Reads the judge's standard output as it comes, passes each piece on and keeps only its tail.
class OutputPump {
 public:
  OutputPump(int fd, std::function<void(absl::string_view)> sink) : fd_(fd), sink_(std::move(sink)) {}
  ~OutputPump() { Close(); }
  bool open() const { return fd_ >= 0; }
  const std::string& tail() const { return tail_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Waits up to `ms` for output and passes on what came (after the end of the output: just waits).
  void Pump(int ms) {
    struct pollfd p = {fd_, POLLIN, 0};
    if (::poll(&p, fd_ >= 0 ? 1 : 0, ms) <= 0 || fd_ < 0) return;  // timeout, or EINTR: the caller looks again
    char buf[65536];
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      const absl::string_view piece(buf, static_cast<size_t>(n));
      sink_(piece);
      tail_.append(piece.data(), piece.size());
      if (tail_.size() > 2 * kTail) tail_.erase(0, tail_.size() - kTail);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      Close();
    }
  }

 private:
  int fd_;
  std::function<void(absl::string_view)> sink_;
  std::string tail_;
};

struct JudgeRun {
  int exit_code = 0;    // 128 + the signal when one ended it
  bool timed_out = false;
  int stopped_by = 0;   // the stop signal that ended it
  std::string tail;     // the end of its standard output
};

// /bin/sh -c script in a process group of its own, standard input from /dev/null, standard
// output into a pipe whose read end *out_fd gets.
absl::StatusOr<pid_t> StartJudge(const std::string& script, int* out_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe2: ", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(e)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], STDOUT_FILENO);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::setpgid(pid, pid);  // here too, so that a kill of the group right away reaches it
  ::close(fds[1]);
  *out_fd = fds[0];
  return pid;
}

// Whether `pid` has ended, without reaping it: while unreaped, its process group id stays its own.
bool Ended(pid_t pid) {
  siginfo_t si;
  std::memset(&si, 0, sizeof si);
  return ::waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

absl::StatusOr<JudgeRun> RunJudge(const std::string& script, const BisectOptions& o) {
  int fd = -1;
  absl::StatusOr<pid_t> started = StartJudge(script, &fd);
  if (!started.ok()) return started.status();
  const pid_t pid = *started;
  OutputPump out(fd, o.judge_output ? o.judge_output : [](absl::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  });
  JudgeRun run;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(o.judge_timeout_s));
  while (!Ended(pid)) {
    if ((run.stopped_by = Stopped(o)) != 0) break;
    if (Clock::now() >= deadline) {
      run.timed_out = true;
      break;
    }
    out.Pump(100);
  }
  if (run.stopped_by != 0 || run.timed_out) {
    ::kill(-pid, SIGTERM);
    const auto grace = Clock::now() + std::chrono::seconds(kJudgeGraceS);
    while (!Ended(pid) && Clock::now() < grace) out.Pump(50);
  }
  ::kill(-pid, SIGKILL);  // whatever is left in its group
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The rest of the output: at its end once every writer is gone; one that left the group may
  // still hold the pipe, so 2 s at most.
  const auto drain = Clock::now() + std::chrono::seconds(2);
  while (out.open() && Clock::now() < drain) out.Pump(50);
  run.tail = out.tail().size() > kTail ? out.tail().substr(out.tail().size() - kTail) : out.tail();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

enum class Verdict { kGood, kBad };

// Runs the judge in a fresh worktree of `commit`, removed afterwards whatever happens.
absl::StatusOr<Verdict> Judge(const BisectOptions& o, const std::string& good, const std::string& commit,
                              double* seconds) {
  absl::StatusOr<std::unique_ptr<Worktree>> wt = Worktree::Add(o.repo, commit);
  if (!wt.ok()) return wt.status();
  if (const int sig = Stopped(o)) {
    return absl::CancelledError(absl::StrCat("stopped by ", SignalName(sig), " before judging commit ", commit,
                                             "; its worktree and temporary folder are removed"));
  }
  const std::string script =
      absl::StrCat("export MLBENCH_BISECT_GOOD=", gate::ShellQuote(good), " MLBENCH_BISECT_CANDIDATE=",
                   gate::ShellQuote(commit), " MLBENCH_BISECT_OUT=", gate::ShellQuote((*wt)->dir()), "; cd ",
                   gate::ShellQuote((*wt)->tree()), " && ", o.judge);
  const auto t0 = Clock::now();
  absl::StatusOr<JudgeRun> r = RunJudge(script, o);
  *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!r.ok()) return r.status();
  if (r->stopped_by != 0) {
    return absl::CancelledError(absl::StrCat("stopped by ", SignalName(r->stopped_by), " while judging commit ",
                                             commit, ": the judge's process group was ended, its worktree and "
                                             "temporary folder are removed"));
  }
  if (r->timed_out) {
    return absl::DeadlineExceededError(absl::StrFormat(
        "the judge ran past --judge_timeout_s=%g on commit %s: its process group was ended (SIGTERM, then SIGKILL "
        "after %d s) and its worktree removed; give it more time (--judge_timeout_s, %g to %g) or make it faster. "
        "The end of its output: %s",
        o.judge_timeout_s, commit, kJudgeGraceS, kMinJudgeTimeoutS, kMaxJudgeTimeoutS, r->tail));
  }
  if (r->exit_code == 0) return Verdict::kGood;
  if (r->exit_code == 3) return Verdict::kBad;
  return absl::FailedPreconditionError(absl::StrCat("the judge exited ", r->exit_code, " on commit ", commit,
                                                    " (0: good, 3: a regression; anything else stops): ", r->tail));
}

absl::Status CheckOptions(const BisectOptions& o) {
  if (!(o.judge_timeout_s >= kMinJudgeTimeoutS && o.judge_timeout_s <= kMaxJudgeTimeoutS)) {
    return absl::InvalidArgumentError(absl::StrFormat("--judge_timeout_s=%g is out of range: allowed %g to %g seconds",
                                                      o.judge_timeout_s, kMinJudgeTimeoutS, kMaxJudgeTimeoutS));
  }
  if (o.judge.empty()) return absl::InvalidArgumentError("--judge is empty");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ResolveCommit(const std::string& repo, const std::string& rev) {
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(
      {"git", "-C", repo, "rev-parse", "--verify", "--quiet", rev + "^{commit}"}, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  const std::string err(absl::StripAsciiWhitespace(r->stderr_text));
  if (r->exit_code != 0) {
    return absl::InvalidArgumentError(absl::StrCat("'", rev, "' names no commit in the git checkout '", repo, "'",
                                                   err.empty() ? "" : absl::StrCat(" (git: ", err, ")")));
  }
  std::string s(absl::StripAsciiWhitespace(r->stdout_text));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

absl::StatusOr<BisectResult> Bisect(const BisectOptions& o) {
  if (absl::Status st = CheckOptions(o); !st.ok()) return st;
  auto log = [&o](const std::string& line) {
    if (o.log) o.log(line);
  };
  absl::StatusOr<std::string> good = ResolveCommit(o.repo, o.good);
  if (!good.ok()) return absl::InvalidArgumentError(absl::StrCat("--good='", o.good, "' is not a commit here"));
  absl::StatusOr<std::string> bad = ResolveCommit(o.repo, o.bad);
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

void CatchStopSignals() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnStopSignal;  // no SA_RESTART: a wait returns at once to look at the flag
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

int StopSignal() { return g_stop_signal; }

void DieOfStopSignal() {
  const int sig = g_stop_signal != 0 ? g_stop_signal : SIGTERM;
  std::fflush(stdout);
  std::fflush(stderr);
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  _exit(128 + sig);
}

}  // namespace history
