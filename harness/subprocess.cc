// fork + execvp with pipes for the child's output; see bench_subprocess.h.
#include "harness/subprocess.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/argv.h"
#include "harness/atomic_file.h"

namespace harness {

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv, bool capture_stderr) {
  if (argv.empty()) return absl::InvalidArgumentError("RunProcess: empty argv");
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe(out) != 0 || (capture_stderr && pipe(err) != 0)) {
    return absl::InternalError(absl::StrCat("pipe() failed: ", std::strerror(errno)));
  }
  Argv cargv(argv);

  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  // SIGINT and SIGTERM wait until the child is registered: the parent's handler then stops it
  // before it removes the temporary files the child may be writing (harness/atomic_file.h).
  sigset_t stop_signals, before;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
  pid_t pid = fork();
  if (pid < 0) {
    const int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return absl::InternalError(absl::StrCat("fork() failed: ", std::strerror(fork_errno)));
  }
  if (pid == 0) {
    // Nor does the child outlive a parent that dies otherwise.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    if (capture_stderr) {
      dup2(err[1], STDERR_FILENO);
      close(err[0]);
      close(err[1]);
    }
    execvp(cargv.argv()[0], cargv.argv());
    std::fprintf(stderr, "cannot execute %s: %s\n", cargv.argv()[0], std::strerror(errno));
    _exit(127);
  }
  RegisterChildProcess(pid);  // stopped first by SIGINT / SIGTERM (harness/atomic_file.h)
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  close(out[1]);
  if (capture_stderr) close(err[1]);

  ProcessResult result;
  // Drain both pipes together so a child that fills one cannot block on it.
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {capture_stderr ? err[0] : -1, POLLIN, 0}};
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  int open_fds = capture_stderr ? 2 : 1;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      UnregisterChildProcess(pid);
      return absl::InternalError(absl::StrCat("waitpid(", argv[0], ") failed: ", std::strerror(errno)));
    }
  }
  UnregisterChildProcess(pid);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

}  // namespace harness
