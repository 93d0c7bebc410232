// LayerNorm's epsilon, shared by the CPU and CUDA ops and the elementwise benchmark:
// 1e-5, as GPT-2 (nanoGPT's nn.LayerNorm, llm.c's layernorm_forward) uses.
#ifndef MODEL_LAYERNORM_MATH_H_
#define MODEL_LAYERNORM_MATH_H_

namespace model {

constexpr float kLayerNormEps = 1e-5f;

}  // namespace model

#endif  // MODEL_LAYERNORM_MATH_H_
