// RoPE's angle and one pair's rotation, shared by the CPU ops (rope_cpu.h) and the CUDA kernels.
#ifndef MODEL_ROPE_MATH_H_
#define MODEL_ROPE_MATH_H_

#include <cmath>
#include <cstdint>

#include "model/model_hd.h"

namespace model {

// The angle of pair i (channels 2i, 2i+1) of a head of size hd at position t: t * theta^(-2i/hd),
// in double (Meta's reference computes the frequencies in fp32; in double the table is the same
// to fp32's rounding wherever t * freq is small, and more exact where it is large).
inline double RopeAngle(int64_t t, int64_t i, int64_t hd, double theta) {
  return static_cast<double>(t) * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
}

// The pair (x0, x1) rotated by the angle whose cosine and sine are c and s; sign -1 rotates back.
template <typename F>
MODEL_HD inline void RopeRotate(F* x0, F* x1, F c, F s, int sign) {
  const F a = *x0, b = *x1, ss = sign > 0 ? s : -s;
  *x0 = a * c - b * ss;
  *x1 = a * ss + b * c;
}

}  // namespace model

#endif  // MODEL_ROPE_MATH_H_
