// The start-up self-check's comparison (attention_selfcheck.h): two causal-attention results for
// the same inputs, tensor by tensor (the output, then dq, dk, dv out of the (B, T, QKV) gradient),
// each within a tolerance relative to the reference tensor's largest magnitude. Pure host code:
// the verdict and its message are tested without a device.
// Legend: B batch, T sequence, NH query heads, NKV K/V heads (grouped-query attention; NH when 0),
// HS head size, C = NH * HS, QKV = C + 2 * NKV * HS (q | k | v per row; 3C when NKV = NH).
#ifndef MODEL_CUDA_ATTENTION_COMPARE_H_
#define MODEL_CUDA_ATTENTION_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace model {
namespace cuda {

struct AttentionShape {
  int64_t B = 0, T = 0, NH = 0, HS = 0;
  int64_t NKV = 0;  // K/V heads; 0: NH (multi-head attention)
  int64_t C() const { return NH * HS; }
  int64_t kv_heads() const { return NKV > 0 ? NKV : NH; }
  int64_t KVW() const { return kv_heads() * HS; }  // k's (and v's) width in a qkv row
  int64_t QKV() const { return C() + 2 * KVW(); }
  // "B=2 T=64 NH=4 HS=64", plus " NKV=2" with fewer K/V heads than query heads.
  std::string ToString() const;
};

// What one implementation produced, as floats: out (B, T, NH, HS) and dqkv (B, T, QKV),
// dq | dk | dv laid out as the qkv GEMM's output.
struct AttentionResults {
  std::vector<float> out;
  std::vector<float> dqkv;
};

// bf16 tolerance: both paths accumulate in fp32 but round probabilities and outputs to bf16
// (8 significant bits, ~0.4% each), and the gradients go through two more rounded products.
// A wrong mask, scale or layout is off by O(1).
inline constexpr double kBf16AttentionTolerance = 5e-2;

// OK when, for each of out, dq, dk, dv, max |got - want| <= tolerance * max |want| and `got` has
// no NaN or infinity. Else InvalidArgument naming the first tensor that fails and its worst
// element: "dk: worst element b=1 t=37 h=2 e=5: got 0.1234, want 0.0567 (|diff| 0.0667 = 0.21 of
// max |want| 0.3125; tolerance 0.05)". Sizes that do not match the shape are InvalidArgument too.
absl::Status CompareAttentionResults(const AttentionShape& shape, const AttentionResults& want,
                                     const AttentionResults& got, double tolerance = kBf16AttentionTolerance);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_COMPARE_H_
