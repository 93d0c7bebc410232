// FlopCounter and the thread's current-counter slot.
#include "accounting/flop_counter.h"

#include "accounting/costs.h"

namespace accounting {
namespace {
thread_local FlopCounter* g_current = nullptr;
}  // namespace

void FlopCounter::AddMatmul(int64_t m, int64_t k, int64_t n, std::string_view tag) {
  const double f = MatmulFlops(m, k, n);  // 2mkn: one multiply-add = 2 FLOPs
  total_ += f;
  matmul_total_ += f;
  ++matmul_calls_;
  by_tag_[std::string(tag)] += f;
}

void FlopCounter::AddFlops(double flops, std::string_view tag) {
  total_ += flops;
  by_tag_[std::string(tag)] += flops;
}

void FlopCounter::Reset() {
  total_ = 0;
  matmul_total_ = 0;
  matmul_calls_ = 0;
  by_tag_.clear();
}

ScopedFlopCounter::ScopedFlopCounter(FlopCounter* c) : previous_(g_current) { g_current = c; }
ScopedFlopCounter::~ScopedFlopCounter() { g_current = previous_; }

FlopCounter* CurrentFlopCounter() { return g_current; }

void CountMatmul(int64_t m, int64_t k, int64_t n, std::string_view tag) {
  if (g_current != nullptr) g_current->AddMatmul(m, k, n, tag);
}

void CountFlops(double flops, std::string_view tag) {
  if (g_current != nullptr) g_current->AddFlops(flops, tag);
}

}  // namespace accounting
