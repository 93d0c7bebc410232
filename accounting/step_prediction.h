// A training step's predicted time from the machine's measured rates, before (or without)
// timing the step: the number a sweep holds against the measurement at each point.
//
//   predicted = the step's Linear GEMMs at their isolated rates (each shape measured alone)
//             + attention's per-head products (QK^T, AV and their backward) at the Linear
//               GEMMs' mean rate
//             + the memory-bound ops' bytes and the Linear weights' trips to memory (below) at
//               the STREAM triad, as STREAM counts bytes on both sides (no write-allocate)
//             + AdamW's bytes at AdamW's own bytes/s, measured alone on arrays of DRAM size
//
// It differs from the step floor (step_floor.h) in what it is for: the floor is a bound (what
// a fused step could reach), the prediction is what this code should take. What it does not
// model, by design: a GEMM running slower inside the step than alone (other ops evict its
// operands), the memory-bound ops' working sets that fit in a cache (they run above the DRAM
// bandwidth), the per-head products' own rate (K = head size is small; at long sequences they
// run below the Linears' rate), and the loss read-back and thread start-ups between ops.
//
// The memory-bound ops' bytes (StepTraffic) count each tensor an op reads or writes once, fp32
// (4 bytes), in the CPU model's order of ops (model/cpu_gpt.cc), N = B*T tokens, C width,
// F the MLP's hidden width, A = B*H*T*T attention scores (the full square: the CPU computes it
// whole), QKV = C + 2*KV*hd, Vp the padded vocabulary:
//   per layer, forward:  2 norms with their residual add fused (read 2 NC, write 2 NC each) 8 NC;
//                        softmax of the scores (read A, write A) 2 A; GeLU (read NF, write NF)
//                        2 NF or SwiGLU (read 2 NF, write NF) 3 NF; RoPE (q and k in place)
//                        2 N (C + KV hd)
//   per layer, backward: 2 norms (read dout, x, the residual's gradient; write it) 8 NC and the
//                        2 residual adds 6 NC; the softmax's backward (read att, datt; write
//                        dpreatt) 3 A; GeLU's (read dout, x; write) 3 NF or SwiGLU's (read dout,
//                        gate, up; write 2) 5 NF; RoPE's 2 N (C + KV hd); with biases, the bias
//                        sums read each Linear's output gradient N (QKV + C + F + C)
//   once: the embeddings, forward (read the token rows and the positions, write) 3 NC and
//         backward (read the gradient, accumulate rows in wte and wpe) 5 NC; the final norm
//         2 NC forward and 4 NC backward; the cross-entropy (read the logits for their
//         log-sum-exp; read them again and write dlogits) 3 N Vp
//   recompute: activation adds the activation's forward per layer; attention the softmax's
//         forward (2 A); block the whole layer's forward (its GEMMs' weights read once more).
//   the Linear weights from memory: the forward and the backward-input GEMMs each read every
//         Linear weight matrix (the classifier's too) and the backward-weight GEMMs write its
//         gradient, 3 x 4 bytes a weight. A GEMM's isolated rate is measured by repeating it, so
//         its weight sits in the cache; in the step each weight comes from memory once per use,
//         which at small B*T (the GEMMs' M) is a large part of their time: on a Zen 3 VM, gpt2 at
//         B=1..2, T=32 took 1.3-1.4x the prediction without this term.
#ifndef ACCOUNTING_STEP_PREDICTION_H_
#define ACCOUNTING_STEP_PREDICTION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"

namespace accounting {

struct StepTraffic {
  double bytes = 0;                                  // the sum of ops
  std::vector<std::pair<std::string, double>> ops;   // "norms", "softmax", "activation", ... bytes
  double attention_flops = 0;  // the per-head products issued (full T x T, fwd + bwd + recomputed)
  double weight_bytes = 0;     // the Linear weights' part of `bytes` (also an entry of ops)
};

// The Linear layers' weights: per layer C x QKV, C x C, the MLP's (2 or 3 of C x F), and the
// classifier's Vp x C.
double LinearWeightCount(const GptShape& shape);

// The fp32 CPU step of batch x seq tokens. Errors: an invalid shape, seq outside [1, block],
// batch < 1.
absl::StatusOr<StepTraffic> MemoryOpsTraffic(const GptShape& shape, int64_t batch, int64_t seq,
                                             Recompute recompute = Recompute::kNone);

struct StepPredictionInput {
  double gemm_seconds_at_rates = 0;   // the Linear GEMMs: sum over shapes of flops / isolated rate
  double gemm_flops = 0;              // their FLOPs (with gemm_seconds: the mean rate)
  StepTraffic traffic;                // the memory-bound ops and attention's products
  double triad_bytes_per_s = 0;       // STREAM triad as STREAM counts it (12 bytes an element)
  double adamw_bytes = 0;             // params x 28 (30 with the bf16 copy)
  double adamw_bytes_per_s = 0;       // AdamW alone on DRAM-sized arrays
};

struct StepPrediction {
  double gemm_seconds = 0;
  double attention_seconds = 0;
  double memory_ops_seconds = 0;
  double adamw_seconds = 0;
  double seconds = 0;  // the sum
};

// Errors name the field: a negative or non-finite value, gemm_seconds or a rate <= 0.
absl::StatusOr<StepPrediction> PredictStep(const StepPredictionInput& in);

}  // namespace accounting

#endif  // ACCOUNTING_STEP_PREDICTION_H_
