// The classifier loss on the GPU, fused as the CPU twin (model/crossentropy_cpu.h) is: no
// probability tensor is ever stored. Forward makes one pass over each row of logits (online
// max and sum of exponentials) and keeps its log-sum-exp; backward turns the logits into their
// gradient in place in one pass. The split follows the GptModel interface, whose logits stay
// readable between Forward and Backward. Only the first V of Vp columns are real classes.
// Legend: B batch, T sequence, V vocab, Vp padded vocab.
#ifndef MODEL_CUDA_CROSSENTROPY_CUDA_H_
#define MODEL_CUDA_CROSSENTROPY_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// losses: fp32 (B, T) = lse - logits[target]; lse: fp32 (B, T) over the V real columns;
// logits: (B, T, Vp); targets: (B, T) device ids in [0, V). One block per row.
template <typename S>
void crossentropy_forward(float* losses, float* lse, const S* logits, const int32_t* targets, int64_t B,
                          int64_t T, int64_t V, int64_t Vp);

// logits: (B, T, Vp), IN: logits, OUT: dloss * (softmax - onehot(target)), zeros in the padded
// columns; lse: fp32 (B, T) from crossentropy_forward; dloss: d(loss) / d(row loss), 1/(B*T).
template <typename S>
void crossentropy_softmax_backward(S* logits, const float* lse, const int32_t* targets, float dloss,
                                   int64_t B, int64_t T, int64_t V, int64_t Vp);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CROSSENTROPY_CUDA_H_
