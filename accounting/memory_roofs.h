// The memory side of the roofline: one roof per kind of traffic and per cache level, and the roof
// an op is held to.
//
// A memory-bound op moves bytes in one of a few patterns, and the hardware does not move them at
// one rate (Williams, Waterman and Patterson's "Roofline", CACM 2009, draws one memory slope; the
// Empirical Roofline Toolkit and Intel Advisor's cache-aware roofline draw one per level). The
// kinds measured (measure/memory_kernels.h has the kernels):
//
//   kind      kernel (fp32 arrays)                   counted bytes/el.  moved bytes/el.
//   read      s += a[i], as 8 streams a thread       4                  4
//   write_nt  a[i] = s, non-temporal stores          4                  4
//   copy      b[i] = a[i] (STREAM)                   8                  12: the plain store reads b's line first (write-allocate)
//   triad     a[i] = b[i] + s c[i] (STREAM)          12                 16: the same
//   in_place  a[i] = s a[i] + c[i]; b[i] = t b[i] + c[i] c[i]   20      20: a written line was just read, nothing is allocated
//
// Counted bytes are the ones the project counts for every op (accounting::ElementwiseBytes: each
// input read once, each output written once); the roofs are in those units, so an op's bytes/s
// is compared with the roof of its own kind without conversion. in_place is AdamW's pattern
// (p, m, v updated in place from g: 4 reads, 3 writes an element); the kernel's 3 reads and 2
// writes keep its mix while using STREAM's three arrays, so the start-up measurement allocates no
// more than before.
//
// An op declares its traffic (OpTraffic); KindOf maps it to a kind; RoofForTraffic picks the
// roof: the smallest cache level whose capacity holds the op's working set, else DRAM.
#ifndef ACCOUNTING_MEMORY_ROOFS_H_
#define ACCOUNTING_MEMORY_ROOFS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accounting {

enum class TrafficKind { kRead, kWriteNt, kCopy, kTriad, kInPlace };

inline constexpr TrafficKind kAllTrafficKinds[] = {TrafficKind::kRead, TrafficKind::kWriteNt, TrafficKind::kCopy,
                                                   TrafficKind::kTriad, TrafficKind::kInPlace};

// "read", "write_nt", "copy", "triad", "in_place".
std::string_view TrafficKindName(TrafficKind kind);
// nullopt when `name` is none of them.
std::optional<TrafficKind> ParseTrafficKind(std::string_view name);
// "read, write_nt, copy, triad, in_place" (for error messages).
std::string AllowedTrafficKindNames();

// Bytes the hardware moves per byte counted: 1.5 for copy, 4/3 for triad (the write-allocate read
// of the written array), 1 for the others.
double MovedPerCounted(TrafficKind kind);
// Counted bytes per element of the kind's kernel (the table above): 4, 4, 8, 12, 20.
double KernelCountedBytesPerElement(TrafficKind kind);

// What an op moves, counted as the project counts (each input byte read once, each output byte
// written once).
struct OpTraffic {
  double read_bytes = 0;
  double write_bytes = 0;
  bool in_place = false;           // every written line was just read by the op (AdamW)
  bool streaming_stores = false;   // written with non-temporal stores (no write-allocate)
  double working_set_bytes = 0;    // bytes the op's data spans before it is reused; 0: unknown (DRAM)
  double bytes() const { return read_bytes + write_bytes; }
};

// Nothing written: read. Non-temporal stores and nothing read: write_nt (with reads too: read,
// the kind no other mix of those two can beat). Written in place: in_place. Else plain stores to
// fresh lines: copy when it reads at most 1.5x what it writes (scale, gelu, layernorm, softmax),
// triad above (add, triad).
TrafficKind KindOf(const OpTraffic& traffic);

// One cache level found by the working-set sweep (measure/cache_sweep.h, accounting/cache_levels.h).
struct CacheLevel {
  std::string name;            // "L1", "L2", "L3" (in the order found; "level 4", ... beyond)
  double capacity_bytes = 0;   // the largest working set (all the kernel's arrays) still at this level's rate
  std::map<std::string, double> bytes_per_s;  // by kind name: the best of the kind's sweep within the level
};

// The measured memory roofs of a machine.
struct MemoryRoofs {
  std::map<std::string, double> dram_bytes_per_s;  // by kind name, on arrays of at least 4x the LLC
  std::map<std::string, double> dram_spread;       // by kind name: (best - median) / best over the trials
  std::vector<CacheLevel> cache_levels;            // smallest first; empty: not swept
  bool empty() const { return dram_bytes_per_s.empty() && cache_levels.empty(); }
};

// The roof an op is held to.
struct HeldRoof {
  TrafficKind kind = TrafficKind::kCopy;
  std::string level;        // "DRAM", or a CacheLevel's name
  double bytes_per_s = 0;   // counted bytes per second
  // "in_place DRAM 31.2 GB/s", "read L2 (<= 1 MiB) 210.0 GB/s".
  std::string Label() const;
};

// The smallest level with capacity >= the working set and a figure for the op's kind; else the
// DRAM roof of its kind; nullopt when `roofs` has no figure for its kind at all.
std::optional<HeldRoof> RoofForTraffic(const MemoryRoofs& roofs, const OpTraffic& traffic);

}  // namespace accounting

#endif  // ACCOUNTING_MEMORY_ROOFS_H_
