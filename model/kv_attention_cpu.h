// The attention of autoregressive decoding on the CPU: new queries against a KV cache.
//
// The cache of one layer holds keys and values per stream and K/V head, position-major within a
// head so that one query reads its head's keys (and values) as one contiguous block:
//   k_cache, v_cache: (B, NKV, maxT, hs).
// With grouped-query attention (NKV < NH K/V heads, each shared by NH / NKV consecutive query
// heads, attention_cpu.h) the cache holds the NKV heads only: NH / NKV times smaller than one
// per query head. kv_cache_write copies the k and v parts of a qkv buffer (the model's (B, T,
// QKV) = q | k | v, model/attention_cpu.h's layout, after RoPE where the model has it) into
// positions pos .. pos + T - 1; kv_attention_forward is causal attention of the T new queries at
// those positions over the cached keys 0 .. pos + t (softmax(q k^T / sqrt(hs)) v, max-subtracted,
// as attention_forward computes it); query head h reads K/V head h / (NH / NKV). With pos = 0
// and T new tokens it equals attention_forward over those T tokens.
// Legend: B streams, T new tokens per stream, C channels, NH query heads, NKV K/V heads (<= 0:
// NH), hs = C/NH head size, QKV = C + 2 * NKV * hs (3C for multi-head).
#ifndef MODEL_KV_ATTENTION_CPU_H_
#define MODEL_KV_ATTENTION_CPU_H_

#include <cstdint>

namespace model {

// k_cache, v_cache: (B, NKV, maxT, hs); qkv: (B, T, QKV). pos + T <= maxT.
template <typename F>
void kv_cache_write(F* k_cache, F* v_cache, const F* qkv, int64_t B, int64_t T, int64_t C, int64_t NH,
                    int64_t maxT, int64_t pos, int64_t NKV = 0);

// out: (B, T, C) heads concatenated; qkv: (B, T, QKV) (its q part is read); k_cache, v_cache:
// (B, NKV, maxT, hs) holding positions 0 .. pos + T - 1; scratch: (B, NH, pos + T) floats.
// OpenMP over (stream, query head). Reports 2 x 2 * hs * (pos + t + 1) FLOPs per query head and
// row to accounting's FLOP counter ("attention_qk", "attention_av"): only the keys it reads.
template <typename F>
void kv_attention_forward(F* out, F* scratch, const F* qkv, const F* k_cache, const F* v_cache, int64_t B,
                          int64_t T, int64_t C, int64_t NH, int64_t maxT, int64_t pos, int64_t NKV = 0);

}  // namespace model

#endif  // MODEL_KV_ATTENTION_CPU_H_
