// Helpers for the fuzz targets: an input split into a few leading parameter bytes and a body,
// the body as a file the parser can open by path (in memory: memfd, no disk traffic), and a
// property check that aborts (a crash to libFuzzer and to the replay driver alike).
#ifndef FUZZ_FUZZ_UTIL_H_
#define FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace fuzz {

// Reads parameters off the front of a fuzz input; past the end every read gives 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  // Everything not read yet.
  std::string Rest() const { return std::string(reinterpret_cast<const char*>(data_) + pos_, size_ - pos_); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// `contents` as a file: an anonymous in-memory file (memfd_create), opened by its
// /proc/self/fd path. Closed on destruction.
class MemFile {
 public:
  explicit MemFile(const std::string& contents);
  ~MemFile();
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A folder of its own under TEST_TMPDIR or TMPDIR (else /tmp), made once per process and
// removed at exit with what is in it; for targets that also write (round trips).
const std::string& ScratchDir();

// Prints "fuzz: property failed: <what>" with the place and aborts.
[[noreturn]] void Fail(const char* what, const char* file, int line);

}  // namespace fuzz

#define FUZZ_CHECK(cond)                                  \
  do {                                                    \
    if (!(cond)) ::fuzz::Fail(#cond, __FILE__, __LINE__); \
  } while (0)

// An absl::Status that must be OK; a failure prints the expression and the status's message.
#define FUZZ_CHECK_OK(expr)                                                                        \
  do {                                                                                             \
    const ::absl::Status fuzz_status_ = (expr);                                                    \
    if (!fuzz_status_.ok()) {                                                                      \
      ::fuzz::Fail((std::string(#expr) + ": " + std::string(fuzz_status_.message())).c_str(), __FILE__, \
                   __LINE__);                                                                      \
    }                                                                                              \
  } while (0)

#endif  // FUZZ_FUZZ_UTIL_H_
