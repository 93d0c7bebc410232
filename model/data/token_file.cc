// Memory-mapped uint16 token file.
#include "model/data/token_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace model {
namespace {

// A mapped file that shrinks under its mapping (truncated, or rewritten in place, while a run
// reads it) makes the next read of a page past its new end a SIGBUS, which would end the process
// without a word. The handler below turns a SIGBUS inside a mapped token file into one line naming
// the file, and exit status 2 (bad input); any other SIGBUS goes to the handler that was there
// before. Its table is fixed-size and each message is formatted at Open, so that the handler
// only reads memory and calls write(2) and _exit(2), which are async-signal-safe.
struct Mapped {
  std::atomic<uintptr_t> begin{0}, end{0};  // [begin, end); 0, 0: a free slot
  char message[512] = {};
};
std::array<Mapped, 16> g_mapped;
struct sigaction g_previous;
std::once_flag g_install;

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const Mapped& m : g_mapped) {
    if (at >= m.begin.load() && at < m.end.load()) {
      ssize_t unused = ::write(STDERR_FILENO, m.message, std::strlen(m.message));
      (void)unused;
      ::_exit(2);
    }
  }
  // Not ours: as if this handler were not here. The signal is raised again for the handler that
  // was there before (pending until this one returns; a fault would also recur on return).
  ::sigaction(SIGBUS, &g_previous, nullptr);
  ::raise(sig);
  (void)context;
}

void Register(const void* map, size_t bytes, const std::string& path) {
  std::call_once(g_install, [] {
    struct sigaction sa = {};
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous);
  });
  for (Mapped& m : g_mapped) {
    if (m.end.load() != 0) continue;
    const std::string msg = absl::StrCat(
        program_invocation_short_name, ": error: the token file '", path, "' changed size while it was mapped (",
        bytes, " bytes when it was opened; truncated or rewritten during the run): stopped, exit 2\n");
    std::strncpy(m.message, msg.c_str(), sizeof(m.message) - 2);
    m.message[sizeof(m.message) - 2] = '\n';
    m.message[sizeof(m.message) - 1] = '\0';
    m.begin.store(reinterpret_cast<uintptr_t>(map));
    m.end.store(reinterpret_cast<uintptr_t>(map) + bytes);
    return;
  }
  // More than 16 files mapped at once: the 17th is read without the named message.
}

void Unregister(const void* map) {
  for (Mapped& m : g_mapped) {
    if (m.begin.load() == reinterpret_cast<uintptr_t>(map)) {
      m.end.store(0);
      m.begin.store(0);
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenFile>> TokenFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    const int err = errno;
    const std::string msg = absl::StrCat("cannot open token file '", path, "': ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(msg);
    return absl::InvalidArgumentError(msg);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot stat token file '", path, "': ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("token file '", path, "' is not a regular file"));
  }
  const int64_t bytes = st.st_size;
  if (bytes == 0) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("token file '", path, "' is empty: it must hold uint16 tokens (2 bytes each)"));
  }
  if (bytes > kMaxTokenFileBytes) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("token file '", path, "' has ", bytes,
                                                   " bytes, over the limit of ", kMaxTokenFileBytes,
                                                   " (1 TiB, model/data/token_file.h): is it a token file?"));
  }
  if (bytes % 2 != 0) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("token file '", path, "' has ", bytes,
                     " bytes, an odd count: a token file holds uint16 tokens (2 bytes each)"));
  }
  void* map = ::mmap(nullptr, static_cast<size_t>(bytes), PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file alive
  if (map == MAP_FAILED) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot mmap token file '", path, "': ", std::strerror(err)));
  }
  std::unique_ptr<TokenFile> f(new TokenFile());
  f->path_ = path;
  f->map_ = map;
  f->map_bytes_ = static_cast<size_t>(bytes);
  f->tokens_ = static_cast<const uint16_t*>(map);
  f->num_tokens_ = bytes / 2;
  Register(map, static_cast<size_t>(bytes), path);
  return f;
}

TokenFile::~TokenFile() {
  if (map_ == nullptr) return;
  Unregister(map_);
  ::munmap(map_, map_bytes_);
}

}  // namespace model
