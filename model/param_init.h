// Seeded initialisation of the parameter buffer, as GPT-2 / nanoGPT initialise:
// embeddings and Linear weights ~ N(0, 0.02); the residual projections (attn c_proj, mlp c_proj)
// ~ N(0, 0.02 / sqrt(2L)) (GPT-2 paper, section 2.3); LayerNorm weights 1; biases 0.
// Deterministic for a seed whatever the thread count: each 64K-element chunk of each tensor has
// its own RNG stream, so chunks can be filled in parallel.
#ifndef MODEL_PARAM_INIT_H_
#define MODEL_PARAM_INIT_H_

#include <cstdint>

#include "model/gpt_config.h"
#include "model/param_layout.h"

namespace model {

// params: (num_params) laid out by `layout` (built from `config`).
void InitParams(const GptConfig& config, const ParamLayout& layout, uint64_t seed, float* params);

// The standard deviation InitParams uses for a tensor (0 for constants: LayerNorms, biases).
double InitStd(const GptConfig& config, ParamId id);

}  // namespace model

#endif  // MODEL_PARAM_INIT_H_
