// PageAccessRecorder (page_access.h).
#include "harness/page_access.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace harness {
namespace {

constexpr uint8_t kRead = 1, kWritten = 2;

struct Region {
  uintptr_t base = 0;
  int64_t pages = 0;
  std::atomic<uint8_t>* marks = nullptr;  // per page: kRead | kWritten
};

// The watching recorder's regions, read by the handler (fixed while watching).
Region g_regions[PageAccessRecorder::kMaxArrays];
int g_region_count = 0;
std::atomic<bool> g_watching{false};
struct sigaction g_previous;
long g_page = 0;

void OnFault(int sig, siginfo_t* info, void* context) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0; i < g_region_count; ++i) {
    Region& r = g_regions[i];
    if (addr < r.base || addr >= r.base + static_cast<uintptr_t>(r.pages * g_page)) continue;
    const int64_t page = static_cast<int64_t>((addr - r.base) / g_page);
    const auto* uc = static_cast<const ucontext_t*>(context);
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // the page fault's W/R bit
    void* start = reinterpret_cast<void*>(r.base + page * g_page);
    r.marks[page].fetch_or(write ? kWritten : kRead);
    mprotect(start, g_page, write ? PROT_READ | PROT_WRITE : PROT_READ);
    return;
  }
  // Not ours: a real fault. Fall back to the previous handler's behaviour (default: crash).
  sigaction(sig, &g_previous, nullptr);
}

}  // namespace

int64_t PageAccessRecorder::PageBytes() { return sysconf(_SC_PAGESIZE); }

PageAccessRecorder::~PageAccessRecorder() {
  Stop();
  for (int i = 0; i < g_region_count; ++i) {
    munmap(reinterpret_cast<void*>(g_regions[i].base), g_regions[i].pages * PageBytes());
    delete[] g_regions[i].marks;
  }
  g_region_count = 0;
}

float* PageAccessRecorder::Allocate(int64_t floats) {
  if (g_region_count >= kMaxArrays || floats < 1) return nullptr;
  const int64_t page = PageBytes();
  const int64_t pages = (floats * 4 + page - 1) / page;
  void* p = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Region& r = g_regions[g_region_count++];
  r.base = reinterpret_cast<uintptr_t>(p);
  r.pages = pages;
  r.marks = new std::atomic<uint8_t>[pages];
  for (int64_t i = 0; i < pages; ++i) r.marks[i] = 0;
  return static_cast<float*>(p);
}

absl::Status PageAccessRecorder::Watch() {
  if (g_watching.exchange(true)) return absl::FailedPreconditionError("another PageAccessRecorder is watching");
  g_page = PageBytes();
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = OnFault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_previous) != 0) {
    g_watching = false;
    return absl::InternalError(absl::StrCat("sigaction: ", std::strerror(errno)));
  }
  for (int i = 0; i < g_region_count; ++i) {
    if (mprotect(reinterpret_cast<void*>(g_regions[i].base), g_regions[i].pages * g_page, PROT_NONE) != 0) {
      Stop();
      return absl::InternalError(absl::StrCat("mprotect: ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

void PageAccessRecorder::Stop() {
  if (!g_watching) return;
  for (int i = 0; i < g_region_count; ++i) {
    mprotect(reinterpret_cast<void*>(g_regions[i].base), g_regions[i].pages * g_page, PROT_READ | PROT_WRITE);
  }
  sigaction(SIGSEGV, &g_previous, nullptr);
  g_watching = false;
}

namespace {

int64_t CountMarks(const float* array, uint8_t want, uint8_t unwanted) {
  for (int i = 0; i < g_region_count; ++i) {
    const Region& r = g_regions[i];
    if (r.base != reinterpret_cast<uintptr_t>(array)) continue;
    int64_t n = 0;
    for (int64_t p = 0; p < r.pages; ++p) {
      const uint8_t m = r.marks[p].load();
      if ((m & want) == want && (m & unwanted) == 0) ++n;
    }
    return n;
  }
  return -1;
}

}  // namespace

int64_t PageAccessRecorder::PagesRead(const float* array) const { return CountMarks(array, kRead, 0); }
int64_t PageAccessRecorder::PagesWritten(const float* array) const { return CountMarks(array, kWritten, 0); }
int64_t PageAccessRecorder::PagesWrittenUnread(const float* array) const {
  return CountMarks(array, kWritten, kRead);
}

}  // namespace harness
