// MemoryOpsTraffic and PredictStep (step_prediction.h).
#include "accounting/step_prediction.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {

namespace {

constexpr double kFp32 = 4;

struct LayerBytes {
  double norms_fwd, residual_bwd, norms_bwd, softmax_fwd, softmax_bwd, act_fwd, act_bwd, rope, bias_sums;
  double Forward() const { return norms_fwd + softmax_fwd + act_fwd + rope; }
};

LayerBytes PerLayer(const GptShape& s, double n, double t, double batch) {
  const double c = s.width, f = s.hidden(), hd = s.head_size(), kv = s.kv_head_count();
  const double a = batch * s.heads * t * t;
  LayerBytes l;
  l.norms_fwd = 8 * n * c;
  l.norms_bwd = 8 * n * c;
  l.residual_bwd = 6 * n * c;
  l.softmax_fwd = 2 * a;
  l.softmax_bwd = 3 * a;
  l.act_fwd = (s.swiglu ? 3 : 2) * n * f;
  l.act_bwd = (s.swiglu ? 5 : 3) * n * f;
  l.rope = s.learned_positions ? 0 : 2 * n * (c + kv * hd);
  const double qkv = c + 2 * kv * hd;
  l.bias_sums = s.bias ? n * (qkv + c + f + c) : 0;
  return l;
}

}  // namespace

double LinearWeightCount(const GptShape& s) {
  const double c = s.width, f = s.hidden(), qkv = c + 2.0 * s.kv_head_count() * s.head_size();
  return s.layers * (c * qkv + c * c + (s.swiglu ? 3 : 2) * c * f) + static_cast<double>(s.vocab) * c;
}

absl::StatusOr<StepTraffic> MemoryOpsTraffic(const GptShape& shape, int64_t batch, int64_t seq, Recompute recompute) {
  if (absl::Status st = ValidateGptShape(shape); !st.ok()) return st;
  if (seq < 1 || seq > shape.block) {
    return absl::InvalidArgumentError(absl::StrCat("seq=", seq, ": must be in [1, block=", shape.block, "]"));
  }
  if (batch < 1) return absl::InvalidArgumentError(absl::StrCat("batch=", batch, ": must be >= 1"));
  const double n = static_cast<double>(batch) * seq, c = shape.width, layers = shape.layers;
  const LayerBytes l = PerLayer(shape, n, seq, batch);
  double recomputed = 0;  // elements a recompute level moves again, per layer
  switch (recompute) {
    case Recompute::kNone: break;
    case Recompute::kActivation: recomputed = l.act_fwd; break;
    case Recompute::kAttention: recomputed = l.softmax_fwd; break;
    case Recompute::kBlock:
    case Recompute::kFull: recomputed = l.Forward(); break;
  }
  StepTraffic t;
  auto add = [&](const char* name, double elements) { t.ops.emplace_back(name, kFp32 * elements); };
  add("norms and residuals", layers * (l.norms_fwd + l.norms_bwd + l.residual_bwd) + 2 * n * c + 4 * n * c);
  add("attention softmax", layers * (l.softmax_fwd + l.softmax_bwd));
  add(shape.swiglu ? "SwiGLU" : "GeLU", layers * (l.act_fwd + l.act_bwd));
  if (l.rope > 0) add("RoPE", layers * 2 * l.rope);
  if (l.bias_sums > 0) add("bias sums", layers * l.bias_sums);
  add("embeddings", 8 * n * c);
  add("cross-entropy", 3 * n * static_cast<double>(shape.vocab));
  const double weights = LinearWeightCount(shape);
  const double block_weights = weights - static_cast<double>(shape.vocab) * c;
  const bool block_again = recompute == Recompute::kBlock || recompute == Recompute::kFull;
  add("Linear weights from memory", 3 * weights + (block_again ? block_weights : 0));
  t.weight_bytes = t.ops.back().second;
  if (recomputed > 0) add("recomputed", layers * recomputed);
  for (const auto& [name, bytes] : t.ops) t.bytes += bytes;
  // QK^T and AV per (b, h): 2*T*T*hd each forward, twice that backward, the full square.
  const double fwd = layers * batch * shape.heads * 4.0 * seq * seq * shape.head_size();
  const bool again = recompute == Recompute::kAttention || recompute == Recompute::kBlock ||
                     recompute == Recompute::kFull;
  t.attention_flops = 3 * fwd + (again ? fwd : 0);
  return t;
}

absl::StatusOr<StepPrediction> PredictStep(const StepPredictionInput& in) {
  const std::pair<const char*, double> fields[] = {
      {"gemm_seconds_at_rates", in.gemm_seconds_at_rates}, {"gemm_flops", in.gemm_flops},
      {"traffic.bytes", in.traffic.bytes}, {"traffic.attention_flops", in.traffic.attention_flops},
      {"triad_bytes_per_s", in.triad_bytes_per_s}, {"adamw_bytes", in.adamw_bytes},
      {"adamw_bytes_per_s", in.adamw_bytes_per_s}};
  for (const auto& [name, v] : fields) {
    if (!std::isfinite(v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", v, ": must be finite and >= 0"));
    }
  }
  const std::pair<const char*, double> positive[] = {{"gemm_seconds_at_rates", in.gemm_seconds_at_rates},
                                                     {"gemm_flops", in.gemm_flops},
                                                     {"triad_bytes_per_s", in.triad_bytes_per_s},
                                                     {"adamw_bytes_per_s", in.adamw_bytes_per_s}};
  for (const auto& [name, v] : positive) {
    if (!(v > 0)) return absl::InvalidArgumentError(absl::StrCat(name, "=", v, ": must be > 0"));
  }
  StepPrediction p;
  p.gemm_seconds = in.gemm_seconds_at_rates;
  p.attention_seconds = in.traffic.attention_flops / (in.gemm_flops / in.gemm_seconds_at_rates);
  p.memory_ops_seconds = in.traffic.bytes / in.triad_bytes_per_s;
  p.adamw_seconds = in.adamw_bytes / in.adamw_bytes_per_s;
  p.seconds = p.gemm_seconds + p.attention_seconds + p.memory_ops_seconds + p.adamw_seconds;
  return p;
}

}  // namespace accounting
