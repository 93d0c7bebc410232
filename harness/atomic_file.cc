// See atomic_file.h.
#include "harness/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace harness {
namespace {

// ---- The temporary files SIGINT and SIGTERM remove ----
// A fixed table, so that the handler only reads memory and calls unlink (async-signal-safe).
constexpr int kSlots = 32;
constexpr size_t kMaxPath = 4096;
char g_paths[kSlots][kMaxPath];
std::atomic<int> g_state[kSlots];  // 0 free, 1 being filled, 2 live
struct sigaction g_previous[2];    // SIGINT, SIGTERM as they were before Install
constexpr int kSignals[2] = {SIGINT, SIGTERM};

constexpr int kChildSlots = 8;
std::atomic<pid_t> g_children[kChildSlots];  // 0: free

// Stops the registered children: SIGTERM, up to 2 s for them to go, then SIGKILL; each reaped.
void StopChildren() {
  for (int i = 0; i < kChildSlots; ++i) {
    if (const pid_t pid = g_children[i].load(); pid > 0) ::kill(pid, SIGTERM);
  }
  for (int i = 0; i < kChildSlots; ++i) {
    const pid_t pid = g_children[i].load();
    if (pid <= 0) continue;
    bool gone = false;
    for (int t = 0; t < 200 && !gone; ++t) {  // 200 x 10 ms
      int status = 0;
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      gone = r == pid || r < 0;
      if (!gone) {
        const struct timespec ten_ms = {0, 10 * 1000 * 1000};
        ::nanosleep(&ten_ms, nullptr);
      }
    }
    if (!gone) {
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
  }
}

void OnSignal(int sig) {
  const int saved = errno;
  StopChildren();
  for (int i = 0; i < kSlots; ++i) {
    if (g_state[i].load() == 2) ::unlink(g_paths[i]);
  }
  // The previous disposition (the default: the process dies of `sig`, exit status 128 + sig),
  // delivered as soon as this handler returns (the signal is blocked while it runs).
  for (int k = 0; k < 2; ++k) {
    if (kSignals[k] == sig) ::sigaction(sig, &g_previous[k], nullptr);
  }
  ::raise(sig);
  errno = saved;
}

void InstallSignalCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int k = 0; k < 2; ++k) {
      struct sigaction old;
      if (::sigaction(kSignals[k], nullptr, &old) != 0) continue;
      if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;  // e.g. nohup: stay ignored
      g_previous[k] = old;
      struct sigaction sa;
      std::memset(&sa, 0, sizeof(sa));
      sa.sa_handler = OnSignal;
      sigemptyset(&sa.sa_mask);
      for (int s : kSignals) sigaddset(&sa.sa_mask, s);  // one cleanup at a time
      ::sigaction(kSignals[k], &sa, nullptr);
    }
  });
}

// The slot now holding `path`, or -1 when the table is full or the path too long.
int Register(const std::string& path) {
  InstallSignalCleanup();
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_state[i].store(2);
    return i;
  }
  return -1;
}

void Unregister(int slot) {
  if (slot >= 0) g_state[slot].store(0);
}

// ---- Names ----

std::string ToolName() {
  std::string name;
  for (const char* p = program_invocation_short_name; p != nullptr && *p != '\0' && name.size() < 32; ++p) {
    const char c = *p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')
      name += c;
  }
  return name.empty() ? "mlbench" : name;
}

bool IsToolName(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  }
  return true;
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// The file descriptor `path` names when it is one of the process's own streams (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. Writing such a path goes to the stream as
// it is (its offset, its pipe), never through a rename over the link.
int StreamFd(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (absl::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    int fd = -1;
    if (absl::StartsWith(path, prefix) &&
        absl::SimpleAtoi(absl::string_view(path).substr(prefix.size()), &fd) && fd >= 0) {
      return fd;
    }
  }
  return -1;
}

absl::Status WriteError(const std::string& path, int err) {
  return absl::DataLossError(absl::StrCat("cannot write '", path, "': ", std::strerror(err)));
}

// Runs `write` on `f`, flushes and (when `sync`) fsyncs and closes it; the first failure's errno,
// or 0.
int WriteAndClose(std::FILE* f, const std::function<bool(std::FILE*)>& write, bool sync) {
  errno = 0;
  bool ok = write(f);
  int err = ok ? 0 : (errno != 0 ? errno : EIO);
  if (ok && std::fflush(f) != 0) ok = false, err = errno;
  if (ok && std::ferror(f)) ok = false, err = EIO;
  if (ok && sync && ::fsync(::fileno(f)) != 0) ok = false, err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  return ok ? 0 : err;
}

absl::Status WriteInPlace(const std::string& path, const std::function<bool(std::FILE*)>& write) {
  const int stream = StreamFd(path);
  const int fd = stream >= 0 ? ::fcntl(stream, F_DUPFD_CLOEXEC, 3)
                             : ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return WriteError(path, errno);
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    const int err = errno;
    ::close(fd);
    return WriteError(path, err);
  }
  // No fsync: a pipe, a terminal or a character device has nothing to sync (EINVAL).
  if (const int err = WriteAndClose(f, write, /*sync=*/false); err != 0) return WriteError(path, err);
  return absl::OkStatus();
}

absl::Status WriteReplacing(const std::string& path, const std::function<bool(std::FILE*)>& write) {
  RemoveStaleTempFiles(path);  // left by a writer that was killed
  const std::string tmp = TempPathFor(path);
  const int slot = Register(tmp);  // before it exists: a signal from now on removes it
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC;
  int fd = ::open(tmp.c_str(), kFlags, 0666);
  if (fd < 0 && errno == EEXIST) {
    // Ours by name (this pid): a dead process's with a reused pid, or something planted there.
    // Removed (a link is removed, not followed) and created anew, exclusively.
    ::unlink(tmp.c_str());
    fd = ::open(tmp.c_str(), kFlags, 0666);
  }
  if (fd < 0) {
    const int err = errno;
    Unregister(slot);
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create '", tmp, "' (to write '", path, "'): ", std::strerror(err)));
  }
  std::FILE* f = ::fdopen(fd, "wb");
  int err = 0;
  if (f == nullptr) {
    err = errno;
    ::close(fd);
  } else {
    err = WriteAndClose(f, write, /*sync=*/true);
  }
  if (err != 0) {
    ::unlink(tmp.c_str());
    Unregister(slot);
    return absl::DataLossError(absl::StrCat("cannot write '", path, "': ", std::strerror(err), " (writing '",
                                            tmp, "'; the previous file, if any, is kept)"));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    Unregister(slot);
    return absl::PermissionDeniedError(
        absl::StrCat("cannot rename '", tmp, "' to '", path, "': ", std::strerror(err)));
  }
  Unregister(slot);
  return absl::OkStatus();
}

}  // namespace

std::string TempPathFor(const std::string& path) {
  return absl::StrCat(path, ".tmp.", ToolName(), ".", ::getpid());
}

int RemoveStaleTempFiles(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = FolderOf(path);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  if (prefix == ".tmp.") return 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<tool>.<pid>" or (the older form) "<pid>".
    std::string digits = name.substr(prefix.size());
    if (const size_t dot = digits.rfind('.'); dot != std::string::npos) {
      if (!IsToolName(absl::string_view(digits).substr(0, dot))) continue;
      digits = digits.substr(dot + 1);
    }
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long pid = std::strtol(digits.c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    if (::unlink((dir + "/" + name).c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

std::string OutputTarget(const std::string& path) {
  // The process's own streams (/dev/stdout, /dev/fd/N: links into /proc) and devices or FIFOs
  // behind a link are written in place, through the link, as they are.
  struct stat end;
  if (StreamFd(path) >= 0 || (::stat(path.c_str(), &end) == 0 && !S_ISREG(end.st_mode))) return path;
  std::string target = path;
  for (int hop = 0; hop < 40; ++hop) {  // the kernel's own limit on a chain of links
    struct stat st;
    if (::lstat(target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return target;
    char buf[4096];
    const ssize_t n = ::readlink(target.c_str(), buf, sizeof(buf) - 1);
    if (n <= 0) return target;
    const std::string to(buf, static_cast<size_t>(n));
    target = to[0] == '/' ? to : absl::StrCat(FolderOf(target), "/", to);
  }
  return target;
}

namespace {

// `path`'s target with its folder made absolute and canonical, for comparing two outputs.
std::string CanonicalOutput(const std::string& path) {
  const std::string target = OutputTarget(path);
  char* dir = ::realpath(FolderOf(target).c_str(), nullptr);
  if (dir == nullptr) return target;
  const size_t slash = target.rfind('/');
  std::string out = absl::StrCat(dir, "/", slash == std::string::npos ? target : target.substr(slash + 1));
  std::free(dir);
  return out;
}

}  // namespace

absl::Status CheckDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty() || StreamFd(outputs[i].second) >= 0) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[j].second.empty() || StreamFd(outputs[j].second) >= 0) continue;
      if (CanonicalOutput(outputs[i].second) == CanonicalOutput(outputs[j].second)) {
        return absl::InvalidArgumentError(absl::StrCat(
            outputs[i].first, " and ", outputs[j].first, " name one file, '", CanonicalOutput(outputs[i].second),
            "': one output would be lost under the other; give them different paths"));
      }
    }
  }
  return absl::OkStatus();
}

OutputKind OutputKindOf(const std::string& path) {
  if (StreamFd(path) >= 0) return OutputKind::kInPlace;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return OutputKind::kReplace;  // missing (other errors: at the write)
  if (S_ISDIR(st.st_mode)) return OutputKind::kFolder;
  if (S_ISREG(st.st_mode)) return OutputKind::kReplace;
  return OutputKind::kInPlace;
}

absl::Status CheckWritable(const std::string& given) {
  if (given.empty()) return absl::InvalidArgumentError("the output path is empty");
  const std::string path = OutputTarget(given);  // a link is written through: its target is checked
  switch (OutputKindOf(path)) {
    case OutputKind::kFolder:
      return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': it is a folder"));
    case OutputKind::kInPlace: {
      if (const int fd = StreamFd(path); fd >= 0) {
        const int fl = ::fcntl(fd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
          return absl::PermissionDeniedError(
              absl::StrCat("cannot write '", path, "': file descriptor ", fd, " is not open for writing"));
        }
        return absl::OkStatus();
      }
      if (::access(path.c_str(), W_OK) != 0) {
        return absl::PermissionDeniedError(
            absl::StrCat("cannot write '", path, "': not writable (", std::strerror(errno), ")"));
      }
      return absl::OkStatus();
    }
    case OutputKind::kReplace: break;
  }
  const std::string dir = FolderOf(path);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot write '", path, "': its folder '", dir, "' does not exist"));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': '", dir, "' is not a folder"));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot write '", path, "': folder '", dir,
                                                    "' is not writable (", std::strerror(errno), ")"));
  }
  if (::stat(path.c_str(), &st) == 0 && ::access(path.c_str(), W_OK) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': the file is not writable (", std::strerror(errno), ")"));
  }
  // The temporary file the write will make, made and removed now: a name too long for the file
  // system, a read-only mount or a full quota show here, before the run, not after it.
  const std::string tmp = TempPathFor(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': its temporary file '", tmp,
                                                   "' cannot be made (", std::strerror(errno), ")"));
  }
  if (fd >= 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& given, const std::function<bool(std::FILE*)>& write) {
  if (given.empty()) return absl::InvalidArgumentError("the output path is empty");
  const std::string path = OutputTarget(given);  // a link stays a link: its target is replaced
  switch (OutputKindOf(path)) {
    case OutputKind::kFolder:
      return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': it is a folder"));
    case OutputKind::kInPlace: return WriteInPlace(path, write);
    case OutputKind::kReplace: break;
  }
  return WriteReplacing(path, write);
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  return WriteFileAtomically(path, [&](std::FILE* f) {
    return std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  });
}

void RegisterChildProcess(pid_t pid) {
  InstallSignalCleanup();
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t expected = 0;
    if (g_children[i].compare_exchange_strong(expected, pid)) return;
  }
}

void UnregisterChildProcess(pid_t pid) {
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t expected = pid;
    if (g_children[i].compare_exchange_strong(expected, 0)) return;
  }
}

TempFileGuard::TempFileGuard(std::string path) : path_(std::move(path)), slot_(Register(path_)) {}

TempFileGuard::~TempFileGuard() {
  ::unlink(path_.c_str());
  Unregister(slot_);
}

}  // namespace harness
