// int8 copies of the Linear weights and their lookup (int8_weights.h).
#include "model/int8_weights.h"

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "absl/strings/str_cat.h"

namespace model {

absl::Status Int8LinearWeights::Add(const float* w, int64_t rows, int64_t cols) {
  for (const Entry& e : entries_) {
    if (e.fp32 == w) return absl::InvalidArgumentError("int8 weights: this weight was quantised already");
  }
  Entry e;
  e.fp32 = w;
  if (absl::Status st = QuantizeInt8Matrix(w, rows, cols, &e.m); !st.ok()) return st;
  entries_.push_back(std::move(e));
  return absl::OkStatus();
}

Int8LinearWeights::Rows Int8LinearWeights::Find(const float* w, int64_t cols) const {
  for (const Entry& e : entries_) {
    // Compared as addresses (std::less is a total order even across unrelated arrays).
    const std::less<const float*> before;
    if (e.m.cols != cols || before(w, e.fp32) || !before(w, e.fp32 + e.m.rows * e.m.cols)) continue;
    const int64_t offset = w - e.fp32;
    if (offset % cols != 0) break;
    const int64_t row = offset / cols;
    return Rows{e.m.q.data() + row * cols, e.m.scales.data() + row};
  }
  std::fprintf(stderr, "Int8LinearWeights::Find: %p (%lld columns) is not the start of a row of a weight quantised\n",
               static_cast<const void*>(w), static_cast<long long>(cols));
  std::abort();
}

int64_t Int8LinearWeights::bytes() const {
  int64_t n = 0;
  for (const Entry& e : entries_) n += e.m.bytes();
  return n;
}

}  // namespace model
