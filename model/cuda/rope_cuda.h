// Rotary position embeddings (RoPE; Su et al. 2021, as Meta's Llama and torchtitan apply them) on
// the GPU, in place on the qkv GEMM's output: in every head of q and k, the pair of channels
// (2i, 2i+1) at position t is rotated by the angle t * theta^(-2i/hd); v is untouched. The pairs
// are adjacent channels (Meta's and torchtitan's complex view). The rotation is rope_math.h's
// RopeRotate, in fp32 whatever the storage type S (float or Bf16); the tables are the CPU twin's
// (model/rope_cpu.h: rope_table, computed in double on the host, rounded once to fp32) copied to
// the device.
// Legend: B batch, T sequence, NH query heads, NKV K/V heads, hd head size, QKV = (NH + 2 NKV) hd.
#ifndef MODEL_CUDA_ROPE_CUDA_H_
#define MODEL_CUDA_ROPE_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// cos, sin: (T, hd / 2) host arrays filled as the CPU twin's rope_table<float> fills them
// (rope_math.h's RopeAngle in double, rounded once to fp32); the caller copies them to the device.
void RopeTablesHost(float* cos, float* sin, int64_t T, int64_t hd, double theta);

// qkv: (B, T, QKV) = q (NH heads) | k (NKV heads) | v; q and k rotated in place.
// cos, sin: fp32 (T, hd / 2) device tables (rope_table). One thread per rotated pair.
template <typename S>
void rope_forward(S* qkv, const float* cos, const float* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                  int64_t hd);

// dqkv: (B, T, QKV), the gradient with respect to the rotated q and k, rotated back in place (the
// gradient with respect to q and k before the rotation); dv untouched.
template <typename S>
void rope_backward(S* dqkv, const float* cos, const float* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                   int64_t hd);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ROPE_CUDA_H_
