// CompareAttentionResults: per tensor, the worst element relative to the reference's scale.
#include "model/cuda/attention_compare.h"

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace model {
namespace cuda {
namespace {

// One tensor of a result: `parts` tensors of (B, T, NH, HS) interleaved per row as (B, T, parts,
// NH, HS); this one is part `part`.
struct TensorView {
  const char* name;
  const std::vector<float>* want;
  const std::vector<float>* got;
  int64_t parts, part;
};

struct Worst {
  int64_t b = 0, t = 0, h = 0, e = 0;
  double want = 0, got = 0, diff = -1;
};

absl::Status CompareTensor(const AttentionShape& s, const TensorView& v, double tolerance) {
  double scale = 0;
  Worst worst;
  for (int64_t b = 0; b < s.B; ++b) {
    for (int64_t t = 0; t < s.T; ++t) {
      for (int64_t h = 0; h < s.NH; ++h) {
        for (int64_t e = 0; e < s.HS; ++e) {
          const int64_t i = ((b * s.T + t) * v.parts + v.part) * s.C() + h * s.HS + e;
          const double want = (*v.want)[i], got = (*v.got)[i];
          scale = std::fmax(scale, std::fabs(want));
          // A NaN or infinity counts as the worst possible element.
          const double diff = std::isfinite(got) ? std::fabs(got - want) : INFINITY;
          if (diff > worst.diff) worst = Worst{b, t, h, e, want, got, diff};
        }
      }
    }
  }
  if (worst.diff <= tolerance * scale) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: worst element b=%d t=%d h=%d e=%d: got %.6g, want %.6g (|diff| %.4g = %.3g of max |want| %.4g; "
      "tolerance %.3g)",
      v.name, worst.b, worst.t, worst.h, worst.e, worst.got, worst.want, worst.diff,
      scale > 0 ? worst.diff / scale : INFINITY, scale, tolerance));
}

absl::Status CheckSize(const char* name, size_t got, int64_t want) {
  if (static_cast<int64_t>(got) == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, " has ", got, " elements; the shape needs ", want));
}

}  // namespace

std::string AttentionShape::ToString() const {
  return absl::StrCat("B=", B, " T=", T, " NH=", NH, " HS=", HS);
}

absl::Status CompareAttentionResults(const AttentionShape& s, const AttentionResults& want,
                                     const AttentionResults& got, double tolerance) {
  const int64_t n = s.B * s.T * s.C();
  for (const auto& [name, size, expected] :
       {std::tuple{"want.out", want.out.size(), n}, std::tuple{"got.out", got.out.size(), n},
        std::tuple{"want.dqkv", want.dqkv.size(), 3 * n}, std::tuple{"got.dqkv", got.dqkv.size(), 3 * n}}) {
    if (auto st = CheckSize(name, size, expected); !st.ok()) return st;
  }
  const TensorView views[] = {{"out", &want.out, &got.out, 1, 0},
                              {"dq", &want.dqkv, &got.dqkv, 3, 0},
                              {"dk", &want.dqkv, &got.dqkv, 3, 1},
                              {"dv", &want.dqkv, &got.dqkv, 3, 2}};
  for (const TensorView& v : views) {
    if (auto st = CompareTensor(s, v, tolerance); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace model
