// Whole-file reads with a size limit; see bounded_read.h.
#include "harness/bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace harness {
namespace {

// `size`: "is 300 MiB (314572800 bytes)" or the like; `when`: when the reader stopped.
absl::Status TooLarge(const std::string& what, const std::string& path, const std::string& size,
                      uint64_t max_bytes, const char* when) {
  return absl::OutOfRangeError(absl::StrCat(what, " '", path, "' ", size, ": over the limit of ",
                                            DescribeBytes(max_bytes), " (", max_bytes, " bytes) for a ",
                                            what, "; refused ", when));
}

}  // namespace

std::string DescribeBytes(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;
  auto in = [&](uint64_t unit, const char* name) {
    return bytes % unit == 0 ? absl::StrCat(bytes / unit, " ", name)
                             : absl::StrFormat("%.1f %s", static_cast<double>(bytes) / unit, name);
  };
  if (bytes >= kGiB) return in(kGiB, "GiB");
  if (bytes >= kMiB) return in(kMiB, "MiB");
  if (bytes >= kKiB) return in(kKiB, "KiB");
  return absl::StrCat(bytes, " bytes");
}

absl::StatusOr<std::string> ReadFileAtMost(const std::string& path, uint64_t max_bytes,
                                           const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string msg = absl::StrCat("cannot read ", what, " '", path, "': ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(msg);
    return absl::FailedPreconditionError(msg);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", what, " '", path, "': ", std::strerror(err)));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", what, " '", path, "': it is a directory"));
  }
  std::string text;
  if (S_ISREG(st.st_mode)) {
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size > max_bytes) {
      ::close(fd);
      return TooLarge(what, path, absl::StrCat("is ", DescribeBytes(size), " (", size, " bytes)"), max_bytes,
                      "before reading it");
    }
    text.reserve(size);
  }
  // Read until end of file; never more than max_bytes + 1 (the byte that proves the excess).
  char buf[1 << 16];
  for (;;) {
    const uint64_t room = max_bytes + 1 - text.size();
    const ssize_t n = ::read(fd, buf, room < sizeof(buf) ? room : sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("error while reading ", what, " '", path, "': ", std::strerror(err)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return TooLarge(what, path, "is not a regular file (or grew while read) and holds more", max_bytes,
                      "once past it");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace harness
