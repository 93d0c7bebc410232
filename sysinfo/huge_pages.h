// Large host buffers on 2 MiB transparent huge pages (THP). The model's parameters, gradients,
// AdamW moments and activations, and STREAM's arrays, span gigabytes; on 4 KiB pages every pass
// over them misses the TLB page after page, which costs most under a hypervisor (a two-level page
// walk) and stops the hardware prefetchers at each 4 KiB boundary. Debian's kernels ship THP in
// "madvise" mode: a buffer gets huge pages only when asked with madvise(MADV_HUGEPAGE), so a
// buffer of at least kHugePageMinBytes is aligned to 2 MiB and asked for them before its first
// touch. The kernel may still fall back to 4 KiB pages (THP "never", fragmented memory);
// ProcessHugePageBytes says what the process holds.
// MLBENCH_NO_HUGE_PAGES=1 (environment) turns the advice off, to compare side by side.
#ifndef SYSINFO_HUGE_PAGES_H_
#define SYSINFO_HUGE_PAGES_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace sysinfo {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr size_t kHugePageMinBytes = size_t{4} << 20;

// bytes (rounded up to the alignment) aligned to 64, or to 2 MiB with MADV_HUGEPAGE advice when
// bytes >= kHugePageMinBytes and the advice is not turned off. nullptr when out of memory.
// Release with std::free.
void* AllocateLarge(size_t bytes);

// Whether AllocateLarge asks for huge pages (false under MLBENCH_NO_HUGE_PAGES=1).
bool HugePagesRequested();

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled
// ("always", "madvise", "never"); "" when the file is missing (no THP in the kernel).
std::string ThpMode();

// AnonHugePages of /proc/self/smaps_rollup in bytes: anonymous memory this process holds in huge
// pages. -1 when unknown.
int64_t ProcessHugePageBytes();

// One line for a run's start-up or summary: "2.37 GB of the process's memory on 2 MiB huge pages
// (THP madvise, advised on buffers >= 4 MiB)", or why not ("THP never: 4 KiB pages").
std::string DescribeHugePages();

}  // namespace sysinfo

#endif  // SYSINFO_HUGE_PAGES_H_
