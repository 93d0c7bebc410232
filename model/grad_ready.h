// Gradients final during Backward: what data-parallel training overlaps its all-reduce with.
//
// A model that supports it calls the hook during Backward each time a group of parameter
// gradients is final for that Backward (no later op of it writes them), in the order backward
// produces them: the final LayerNorm (and an untied LM head) first, then each layer from the
// last to the first, then the embeddings (the tied wte last: the encoder adds to it). Each
// group is a list of spans of the gradient buffer; a layer's tensors are stacked over layers in
// the buffer (param_layout.h), so consecutive layers' spans of one tensor are adjacent.
#ifndef MODEL_GRAD_READY_H_
#define MODEL_GRAD_READY_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace model {

struct GradRange {
  int64_t offset = 0;  // elements from the start of the gradient buffer
  int64_t count = 0;   // elements
};

using GradReadyHook = std::function<void(const std::vector<GradRange>&)>;

}  // namespace model

#endif  // MODEL_GRAD_READY_H_
