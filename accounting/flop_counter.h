// A FLOP counter that code reports into, so tests can compare the FLOPs of the ops actually
// issued with a formula (as PyTorch's FlopCounterMode does for the 2mkn check).
//
// Ops call CountMatmul(m, k, n) / CountFlops(f, tag) unconditionally; they are no-ops unless a
// ScopedFlopCounter is alive on the calling thread. Scopes nest: the innermost counter receives
// the counts, and the outer one is current again when the inner scope ends (counts are not
// forwarded to outer counters). Counting follows costs.h: one multiply-add = 2 FLOPs.
// A FlopCounter itself is not thread-safe; give each thread its own.
#ifndef ACCOUNTING_FLOP_COUNTER_H_
#define ACCOUNTING_FLOP_COUNTER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace accounting {

class FlopCounter {
 public:
  // += 2mkn under `tag`; also counted in matmul_total().
  void AddMatmul(int64_t m, int64_t k, int64_t n, std::string_view tag = "matmul");
  // += flops under `tag` (not a matmul: elementwise, softmax, ...).
  void AddFlops(double flops, std::string_view tag);

  double total() const { return total_; }
  double matmul_total() const { return matmul_total_; }
  int64_t matmul_calls() const { return matmul_calls_; }
  std::map<std::string, double> by_tag() const { return by_tag_; }
  void Reset();

 private:
  double total_ = 0;
  double matmul_total_ = 0;
  int64_t matmul_calls_ = 0;
  std::map<std::string, double> by_tag_;
};

// Makes `c` this thread's current counter while alive; restores the previous one on exit.
class ScopedFlopCounter {
 public:
  explicit ScopedFlopCounter(FlopCounter* c);
  ~ScopedFlopCounter();
  ScopedFlopCounter(const ScopedFlopCounter&) = delete;
  ScopedFlopCounter& operator=(const ScopedFlopCounter&) = delete;

 private:
  FlopCounter* previous_;
};

// This thread's current counter, or nullptr.
FlopCounter* CurrentFlopCounter();

// Report to the current counter; no-op if none.
void CountMatmul(int64_t m, int64_t k, int64_t n, std::string_view tag = "matmul");
void CountFlops(double flops, std::string_view tag);

}  // namespace accounting

#endif  // ACCOUNTING_FLOP_COUNTER_H_
