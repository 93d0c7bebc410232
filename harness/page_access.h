// Which pages a piece of code reads and which it writes, counted by the hardware: the watched
// arrays are protected (PROT_NONE), and each first touch of a page faults into a handler that
// notes it as read or written (the fault's error code says which) and opens the page just
// enough: a page first read is opened read-only, so a later write to it faults again and is
// noted too. So a page "read then written" is one the code updated in place, and a page
// written without being read first was written fresh (a plain store allocates its line: the
// write-allocate the memory roofs count, accounting/memory_roofs.h).
//
// The instrumented count behind the test that each op's declared traffic (accounting::OpTraffic)
// is what it moves. Tests only: x86-64 Linux, one recorder watching at a time, arrays page-aligned
// and allocated through it. Reads after the code's own writes are not seen (the page is open by
// then): they hit the cache and are not traffic the project counts.
#ifndef HARNESS_PAGE_ACCESS_H_
#define HARNESS_PAGE_ACCESS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace harness {

class PageAccessRecorder {
 public:
  PageAccessRecorder() = default;
  ~PageAccessRecorder();
  PageAccessRecorder(const PageAccessRecorder&) = delete;
  PageAccessRecorder& operator=(const PageAccessRecorder&) = delete;

  // A page-aligned array of `floats` floats (rounded up to whole pages), readable and writable
  // until Watch; nullptr when the mapping fails. At most kMaxArrays arrays.
  float* Allocate(int64_t floats);
  // Protects every array and installs the fault handler. Errors: another recorder is watching,
  // mprotect or sigaction failed.
  absl::Status Watch();
  // Opens every page again and restores the previous SIGSEGV handler.
  void Stop();

  // Pages of the array starting at `array` (one Allocate returned) first touched by a read, and
  // pages written (after a read or not); -1 for an unknown array.
  int64_t PagesRead(const float* array) const;
  int64_t PagesWritten(const float* array) const;
  // Pages written without being read before: written fresh.
  int64_t PagesWrittenUnread(const float* array) const;
  static int64_t PageBytes();

  static constexpr int kMaxArrays = 16;
};

}  // namespace harness

#endif  // HARNESS_PAGE_ACCESS_H_
