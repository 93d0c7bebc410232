// RMSNorm's epsilon, shared by the CPU and CUDA ops: 1e-5, as Llama 2 and 3 (Meta's reference
// model, torchtitan) use.
#ifndef MODEL_RMSNORM_MATH_H_
#define MODEL_RMSNORM_MATH_H_

namespace model {

constexpr float kRmsNormEps = 1e-5f;

}  // namespace model

#endif  // MODEL_RMSNORM_MATH_H_
