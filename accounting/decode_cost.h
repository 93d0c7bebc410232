// Bytes and FLOPs of autoregressive decoding with a KV cache, and the bandwidth bound they imply
// (the roofline's bandwidth slope; Williams, Waterman and Patterson 2009).
//
// One decode step feeds one token per stream (B streams) at position `pos` (0-based) and makes
// one new token per stream. It reads:
//   weights   once per step, whatever B: every matmul weight, N of gpt_flops.h (FlopParamCount:
//             no wpe, no untied input embedding; the tied LM head counted once, through wte),
//             and one row of each lookup table the token reads (its wpe row with learned
//             positions, its wte row when untied): (N + rows * C) * bytes_per_param;
//             with int8 weight-only Linear weights (model/quantize_int8.h; DecodeWeights::Int8):
//             every matmul weight (the Linear layers' and the LM head's, N_mm of N) 1 byte, plus
//             an fp32 scale per output row of each of those matrices (L * (QKV + C + FC + C) + V
//             rows, FC = F, or 2F with SwiGLU's gate and up), the rest of N (norms, biases) in
//             fp32, and the token's embedding rows in fp32: its wte row always (a tied LM head
//             reads wte's int8 copy, so the lookup's fp32 row is a read of its own) and its wpe
//             row with learned positions:
//             N_mm + 4 * (rows of scales) + 4 * (N - N_mm) + 4 * C * (1 + learned positions);
//             with bf16 weight-only Linear weights (the CPU decoder's bf16 copy, which it reads
//             for the Linear layers and the LM head only; DecodeWeights::Bf16WeightOnly): the
//             same without scales, 2 bytes a matmul weight:
//             2 * N_mm + 4 * (N - N_mm) + 4 * C * (1 + learned positions);
//   KV cache  per stream, the keys and values of positions 0..pos in every layer, K/V heads
//             only (grouped-query attention keeps KV < H heads):
//             2 * L * KV * hd * (pos + 1) * bytes_per_kv_element.
// It writes the new position's keys and values, 2 * L * KV * hd * bytes_per_kv_element per stream
// (kv_write_bytes; under 0.1% of the reads for GPT-2 124M at B = 1). Activations (a few C-vectors
// per layer) are not counted. Bytes per token = bytes per step / B, so batching divides the
// weights among the streams and the bound per stream stays near flat until compute catches up.
// FLOPs per token: 2N (one multiply-add per matmul weight) + 4 * L * H * hd * (pos + 1) (q.k and
// p.v per query head over pos + 1 keys: no masked half is computed, so there is no full/causal
// convention).
// The bound: tokens/s <= bandwidth / bytes per token, DecodeTokensPerSecondBound of
// estimates.h applied to those bytes (with the KV cache ignored and B = 1 it is that estimate).
// Its traffic is almost all reads, so its roof is the read roof (accounting/memory_roofs.h); with
// a write roof given, the cache writes are counted as writes at it:
//   seconds per token >= read bytes / read roof + written bytes / write roof.
#ifndef ACCOUNTING_DECODE_COST_H_
#define ACCOUNTING_DECODE_COST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"

namespace accounting {

// Totals over `steps` steps of `batch` streams; a token is one stream's token of one step.
struct DecodeCost {
  double weight_bytes = 0;  // read once per step (shared by the streams)
  double kv_bytes = 0;      // all streams: the cache read
  double kv_write_bytes = 0;  // all streams: the new positions' keys and values written
  double flops = 0;         // all streams
  int64_t batch = 1;
  int64_t steps = 1;
  double tokens() const { return static_cast<double>(batch) * static_cast<double>(steps); }
  double bytes() const { return weight_bytes + kv_bytes; }
  double bytes_per_token() const { return bytes() / tokens(); }  // read bytes
  double write_bytes_per_token() const { return kv_write_bytes / tokens(); }
  double flops_per_token() const { return flops / tokens(); }
};

// How the weights a decode step reads are stored: every one in bytes_per_param bytes (4 fp32, 2
// bf16; a double converts implicitly, so a bytes-per-parameter figure is a DecodeWeights), or
// weight-only: the matmul weights narrow, the rest in fp32 (WeightOnly: the CPU decoder's bf16
// and int8 copies, the formula above with matmul_bytes a weight and, int8, its scales).
struct DecodeWeights {
  DecodeWeights(double bytes) : bytes_per_param(bytes) {}  // NOLINT: implicit on purpose
  // The matmul weights at matmul_bytes each, with an fp32 scale per output row when `scaled`; the
  // norms, biases and the token's embedding rows in fp32.
  static DecodeWeights WeightOnly(double matmul_bytes, bool scaled) {
    DecodeWeights w(matmul_bytes);
    w.weight_only = true;
    w.scaled = scaled;
    return w;
  }
  static DecodeWeights Int8() { return WeightOnly(1, true); }
  static DecodeWeights Bf16WeightOnly() { return WeightOnly(2, false); }
  double bytes_per_param;  // weight-only: of a matmul weight
  bool weight_only = false;
  bool scaled = false;
};

// The matmul weights of N (FlopParamCount): every Linear layer's and the LM head's; the rest of N
// is the norms and the biases.
int64_t MatmulWeightCount(const GptShape& shape);
// The output rows of those matrices (one int8 scale each): L * (QKV + C + FC + C) + V.
int64_t MatmulOutputRows(const GptShape& shape);

// Weights a decode step reads: (FlopParamCount + one row per lookup table read) * bytes_per_param,
// or with int8 weights the formula above.
absl::StatusOr<double> DecodeWeightBytes(const GptShape& shape, DecodeWeights weights);

// One step at `position` (0 <= position < block) for `batch` >= 1 streams. bytes_per_param and
// bytes_per_kv_element > 0 (4 for fp32, 2 for bf16). Errors name the value.
absl::StatusOr<DecodeCost> DecodeStepCost(const GptShape& shape, DecodeWeights weights,
                                          double bytes_per_kv_element, int64_t batch, int64_t position);

// The sum of `steps` consecutive steps at positions first .. first + steps - 1 (a generation
// after a prompt of `first` tokens); bytes_per_token() and flops_per_token() are then the means
// over the generation (the time-weighted ones, since every step's bytes are its time at the
// bound). first + steps <= block, steps >= 1.
absl::StatusOr<DecodeCost> DecodeRunCost(const GptShape& shape, DecodeWeights weights,
                                         double bytes_per_kv_element, int64_t batch, int64_t first,
                                         int64_t steps);

// Tokens/s of all streams at the bandwidth bound: bandwidth / bytes per token, i.e.
// DecodeTokensPerSecondBound(bytes per token, 1 byte, bandwidth). Per stream: divide by the
// batch. Errors: bytes or bandwidth not finite and > 0.
absl::StatusOr<double> DecodeBoundTokensPerSecond(const DecodeCost& cost, double bandwidth_bytes_per_s);
// With the cache writes at their own roof: tokens / (read bytes / read_roof + written bytes /
// write_roof). Errors: bytes or either roof not finite and > 0.
absl::StatusOr<double> DecodeBoundTokensPerSecond(const DecodeCost& cost, double read_roof_bytes_per_s,
                                                  double write_roof_bytes_per_s);

}  // namespace accounting

#endif  // ACCOUNTING_DECODE_COST_H_
