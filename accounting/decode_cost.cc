// Decode bytes, FLOPs and the bandwidth bound (decode_cost.h).
#include "accounting/decode_cost.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "accounting/estimates.h"

namespace accounting {
namespace {

absl::Status PositiveBytes(const char* name, double v) {
  if (v > 0 && std::isfinite(v)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is invalid: must be finite and > 0"));
}

}  // namespace

int64_t MatmulWeightCount(const GptShape& s) {
  const int64_t C = s.width, kv = s.kv_head_count() * s.head_size(), F = s.hidden();
  const int64_t qkv = C + 2 * kv, up = s.swiglu ? 2 * F : F;
  // Per layer: qkv (QKV x C), the attention's projection (C x C), the MLP's up (FC x C) and down
  // (C x F); the LM head V x C (wte when tied).
  return s.layers * (qkv * C + C * C + up * C + C * F) + s.vocab * C;
}

int64_t MatmulOutputRows(const GptShape& s) {
  const int64_t C = s.width, kv = s.kv_head_count() * s.head_size(), F = s.hidden();
  return s.layers * ((C + 2 * kv) + C + (s.swiglu ? 2 * F : F) + C) + s.vocab;
}

absl::StatusOr<double> DecodeWeightBytes(const GptShape& shape, DecodeWeights weights) {
  if (auto st = ValidateGptShape(shape); !st.ok()) return st;
  if (auto st = PositiveBytes("bytes_per_param", weights.bytes_per_param); !st.ok()) return st;
  const double n = static_cast<double>(FlopParamCount(shape));
  const double C = static_cast<double>(shape.width);
  const double wpe_row = shape.learned_positions ? 1.0 : 0.0;
  if (weights.weight_only) {
    // Narrow matmul weights, int8's fp32 scales, the other parameters (norms, biases) in fp32,
    // and the token's fp32 wte row (tied or not: the head reads the narrow copy) and wpe row.
    const double mm = static_cast<double>(MatmulWeightCount(shape));
    const double scales = weights.scaled ? static_cast<double>(MatmulOutputRows(shape)) : 0.0;
    return mm * weights.bytes_per_param + 4 * scales + 4 * (n - mm) + 4 * C * (1 + wpe_row);
  }
  // Every matmul weight (the LM head included), and one row of each lookup table a token reads:
  // its wpe row (learned positions) and, untied, its wte row.
  const double rows = wpe_row + (shape.tied ? 0.0 : 1.0);
  return (n + rows * C) * weights.bytes_per_param;
}

absl::StatusOr<DecodeCost> DecodeRunCost(const GptShape& shape, DecodeWeights weights,
                                         double bytes_per_kv_element, int64_t batch, int64_t first,
                                         int64_t steps) {
  absl::StatusOr<double> weight_bytes = DecodeWeightBytes(shape, weights);
  if (!weight_bytes.ok()) return weight_bytes.status();
  if (auto st = PositiveBytes("bytes_per_kv_element", bytes_per_kv_element); !st.ok()) return st;
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " is invalid: must be >= 1"));
  if (steps < 1)
    return absl::InvalidArgumentError(absl::StrCat("steps=", steps, " is invalid: must be >= 1"));
  if (first < 0 || first + steps > shape.block) {
    return absl::InvalidArgumentError(absl::StrCat("positions ", first, " .. ", first + steps - 1,
                                                   " are outside the block 0 .. ", shape.block - 1));
  }
  const double L = static_cast<double>(shape.layers);
  const double q = static_cast<double>(shape.heads * shape.head_size());           // H*hd
  const double kv = static_cast<double>(shape.kv_head_count() * shape.head_size());  // KV*hd
  const double n = static_cast<double>(FlopParamCount(shape));
  // Keys read summed over the steps: sum of (pos + 1) for pos = first .. first + steps - 1.
  const double s = static_cast<double>(steps);
  const double keys = s * static_cast<double>(first) + s * (s + 1) / 2;
  DecodeCost c;
  c.batch = batch;
  c.steps = steps;
  c.weight_bytes = *weight_bytes * s;
  c.kv_bytes = 2 * L * kv * keys * bytes_per_kv_element * static_cast<double>(batch);  // K/V heads only
  c.kv_write_bytes = 2 * L * kv * s * bytes_per_kv_element * static_cast<double>(batch);
  c.flops = (2 * n * s + 4 * L * q * keys) * static_cast<double>(batch);              // per query head
  return c;
}

absl::StatusOr<DecodeCost> DecodeStepCost(const GptShape& shape, DecodeWeights weights,
                                          double bytes_per_kv_element, int64_t batch, int64_t position) {
  return DecodeRunCost(shape, weights, bytes_per_kv_element, batch, position, 1);
}

absl::StatusOr<double> DecodeBoundTokensPerSecond(const DecodeCost& cost, double bandwidth_bytes_per_s) {
  if (auto st = PositiveBytes("bytes per token", cost.bytes_per_token()); !st.ok()) return st;
  // estimates.h's bound with the token's bytes as "parameters" of one byte each.
  return DecodeTokensPerSecondBound(cost.bytes_per_token(), 1.0, bandwidth_bytes_per_s);
}

absl::StatusOr<double> DecodeBoundTokensPerSecond(const DecodeCost& cost, double read_roof_bytes_per_s,
                                                  double write_roof_bytes_per_s) {
  if (auto st = PositiveBytes("bytes per token", cost.bytes_per_token()); !st.ok()) return st;
  if (auto st = PositiveBytes("read roof (B/s)", read_roof_bytes_per_s); !st.ok()) return st;
  if (auto st = PositiveBytes("write roof (B/s)", write_roof_bytes_per_s); !st.ok()) return st;
  const double seconds_per_token =
      cost.bytes_per_token() / read_roof_bytes_per_s + cost.write_bytes_per_token() / write_roof_bytes_per_s;
  return 1.0 / seconds_per_token;
}

}  // namespace accounting
