// CompareAttentionResults: per tensor, the worst element relative to the reference's scale.
#include "model/cuda/attention_compare.h"

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace model {
namespace cuda {
namespace {

// One tensor of a result: `heads` heads of HS values per row, starting at column `column` of rows
// `row` long (out: row C; dq, dk, dv: row QKV, at columns 0, C and C + KVW).
struct TensorView {
  const char* name;
  const std::vector<float>* want;
  const std::vector<float>* got;
  int64_t row, column, heads;
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
      for (int64_t h = 0; h < v.heads; ++h) {
        for (int64_t e = 0; e < s.HS; ++e) {
          const int64_t i = (b * s.T + t) * v.row + v.column + h * s.HS + e;
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
  return absl::StrCat("B=", B, " T=", T, " NH=", NH, " HS=", HS,
                      kv_heads() != NH ? absl::StrCat(" NKV=", kv_heads()) : "");
}

absl::Status CompareAttentionResults(const AttentionShape& s, const AttentionResults& want,
                                     const AttentionResults& got, double tolerance) {
  if (s.B < 1 || s.T < 1 || s.NH < 1 || s.HS < 1 || s.NKV < 0 || s.NH % s.kv_heads() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("attention shape ", s.ToString(), ": sizes must be >= 1 and NKV must divide NH"));
  }
  const int64_t n = s.B * s.T * s.C(), nqkv = s.B * s.T * s.QKV();
  for (const auto& [name, size, expected] :
       {std::tuple{"want.out", want.out.size(), n}, std::tuple{"got.out", got.out.size(), n},
        std::tuple{"want.dqkv", want.dqkv.size(), nqkv}, std::tuple{"got.dqkv", got.dqkv.size(), nqkv}}) {
    if (auto st = CheckSize(name, size, expected); !st.ok()) return st;
  }
  const int64_t C = s.C(), QKV = s.QKV(), NKV = s.kv_heads();
  const TensorView views[] = {{"out", &want.out, &got.out, C, 0, s.NH},
                              {"dq", &want.dqkv, &got.dqkv, QKV, 0, s.NH},
                              {"dk", &want.dqkv, &got.dqkv, QKV, C, NKV},
                              {"dv", &want.dqkv, &got.dqkv, QKV, C + s.KVW(), NKV}};
  for (const TensorView& v : views) {
    if (auto st = CompareTensor(s, v, tolerance); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace model
