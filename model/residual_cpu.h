// Residual add on the CPU (llm.c's residual_forward). Its backward is the identity on both
// inputs, which the model implements by reading the same gradient buffer twice.
#ifndef MODEL_RESIDUAL_CPU_H_
#define MODEL_RESIDUAL_CPU_H_

#include <cstdint>

namespace model {

// out, inp1, inp2: (N) with N = B*T*C; out = inp1 + inp2.
template <typename F>
void residual_forward(F* out, const F* inp1, const F* inp2, int64_t N);

}  // namespace model

#endif  // MODEL_RESIDUAL_CPU_H_
