// The attention of autoregressive decoding on the GPU: new queries against a KV cache. CPU twin:
// model/kv_attention_cpu.h (same cache layout, same softmax).
//   k_cache, v_cache: (B, NKV, maxT, hs) storage S (float or Bf16), position-major per K/V head.
// With grouped-query attention (NKV < NH K/V heads, each shared by NH / NKV consecutive query
// heads) the cache holds the NKV heads only, NH / NKV times smaller than one per query head.
// kv_cache_write copies the k and v parts of the model's qkv buffer (B, T, QKV) = q | k | v (after
// RoPE where the model has it) into positions pos .. pos + T - 1; kv_attention_forward is causal
// attention of the T new queries at those positions over keys 0 .. pos + t: one block per
// (stream, new token, query head h), reading K/V head h / (NH / NKV); its threads split the keys
// for q.k (fp32), an exact block max/sum, then its threads split the head's channels for p.v
// (fp32 accumulation). For decode (T = 1) the block reads its K/V head's cache once.
// Legend: B streams, T new tokens, C channels, NH query heads, NKV K/V heads (<= 0: NH),
// hs = C/NH, QKV = C + 2 * NKV * hs (3C for multi-head).
#ifndef MODEL_CUDA_KV_ATTENTION_CUDA_H_
#define MODEL_CUDA_KV_ATTENTION_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// pos + T <= maxT.
template <typename S>
void kv_cache_write(S* k_cache, S* v_cache, const S* qkv, int64_t B, int64_t T, int64_t C, int64_t NH,
                    int64_t maxT, int64_t pos, int64_t NKV = 0);

// out: (B, T, C) heads concatenated; scores: fp32 (B, T, NH, maxT) scratch; qkv: (B, T, QKV)
// (its q part is read). Reports 2 x 2 * hs * (pos + t + 1) FLOPs per query row and query head
// to accounting's FLOP counter ("attention_qk", "attention_av"), as the CPU twin.
template <typename S>
void kv_attention_forward(S* out, float* scores, const S* qkv, const S* k_cache, const S* v_cache, int64_t B,
                          int64_t T, int64_t C, int64_t NH, int64_t maxT, int64_t pos, int64_t NKV = 0);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_KV_ATTENTION_CUDA_H_
