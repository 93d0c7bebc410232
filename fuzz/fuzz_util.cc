// See fuzz_util.h.
#include "fuzz/fuzz_util.h"

#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

MemFile::MemFile(const std::string& contents) {
  fd_ = memfd_create("fuzz_input", 0);
  if (fd_ < 0) Fail("memfd_create", __FILE__, __LINE__);
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd_, contents.data() + done, contents.size() - done);
    if (n <= 0) Fail("write to memfd", __FILE__, __LINE__);
    done += static_cast<size_t>(n);
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemFile::~MemFile() {
  if (fd_ >= 0) close(fd_);
}

namespace {

std::string* scratch = nullptr;

void RemoveScratch() {
  if (scratch == nullptr) return;
  if (DIR* d = opendir(scratch->c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") unlink((*scratch + "/" + n).c_str());
    }
    closedir(d);
  }
  rmdir(scratch->c_str());
}

}  // namespace

const std::string& ScratchDir() {
  if (scratch == nullptr) {
    const char* base = std::getenv("TEST_TMPDIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    if (base == nullptr || *base == '\0') base = "/tmp";
    std::string tmpl = std::string(base) + "/mlbench_fuzz.XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) Fail("mkdtemp for the scratch folder", __FILE__, __LINE__);
    scratch = new std::string(tmpl);
    std::atexit(RemoveScratch);
  }
  return *scratch;
}

void Fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz: property failed: %s (%s:%d)\n", what, file, line);
  std::abort();
}

}  // namespace fuzz
