// Memory-mapped uint16 token file.
#include "model/data/token_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace model {

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
  return f;
}

TokenFile::~TokenFile() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
}

}  // namespace model
