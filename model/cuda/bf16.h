// bfloat16 storage for the CUDA model: a 2-byte struct that host code, CUDA kernels and the
// kernel emulator (emu/) all share, so no host header needs cuda_bf16.h. Conversions are
// MODEL_HD: float -> bf16 rounds to nearest even (the hardware cvt.rn.bf16.f32 on sm_80+, the
// same rounding in integer arithmetic elsewhere); bf16 -> float is exact (a 16-bit shift).
// ToFloat / FromFloat<T> let a kernel templated on its storage type T (float or Bf16) do all
// its arithmetic in fp32.
#ifndef MODEL_CUDA_BF16_H_
#define MODEL_CUDA_BF16_H_

#include <cstdint>
#include <cstring>

#include "model/model_hd.h"

namespace model {
namespace cuda {

struct alignas(2) Bf16 {
  uint16_t bits;
};

// The bits of `from` read as a To of the same size (std::bit_cast before C++20). memcpy is the
// defined way to do it in C++ and in CUDA device code; compilers make it a register move.
template <typename To, typename From>
MODEL_HD inline To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast: the sizes differ");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

MODEL_HD inline uint32_t FloatBits(float f) { return BitCast<uint32_t>(f); }
MODEL_HD inline float BitsToFloat(uint32_t u) { return BitCast<float>(u); }

// Round to nearest, ties to even; NaN stays NaN (quiet), infinities and overflow give inf.
MODEL_HD inline Bf16 FloatToBf16(float f) {
  Bf16 h;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
#else
  const uint32_t u = FloatBits(f);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) {
    h.bits = static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN, sign kept
  } else {
    const uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
    h.bits = static_cast<uint16_t>((u + rounding) >> 16);
  }
#endif
  return h;
}

MODEL_HD inline float Bf16ToFloat(Bf16 h) { return BitsToFloat(static_cast<uint32_t>(h.bits) << 16); }

MODEL_HD inline float ToFloat(float x) { return x; }
MODEL_HD inline float ToFloat(Bf16 x) { return Bf16ToFloat(x); }

template <typename T>
MODEL_HD inline T FromFloat(float x);
template <>
MODEL_HD inline float FromFloat<float>(float x) {
  return x;
}
template <>
MODEL_HD inline Bf16 FromFloat<Bf16>(float x) {
  return FloatToBf16(x);
}

// x rounded through the storage type T (identity for float): what a kernel storing x in T keeps.
template <typename T>
MODEL_HD inline float RoundThrough(float x) {
  return ToFloat(FromFloat<T>(x));
}

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_BF16_H_
