// Softmax cross-entropy fused with the classifier on the CPU. No probability tensor is ever
// stored: the forward pass keeps one log-sum-exp per row, and the backward pass turns the
// logits into their gradient in place (llm.c's fused_classifier idea, split into the two halves
// the Forward / Backward interface needs, so the logits stay readable until Backward).
// Only the first V of the Vp (padded) columns are real classes; padded columns get zero
// gradient and never enter the loss.
// Legend: B batch, T sequence, V vocab, Vp padded vocab.
#ifndef MODEL_CROSSENTROPY_CPU_H_
#define MODEL_CROSSENTROPY_CPU_H_

#include <cstdint>

namespace model {

// losses: (B, T) = lse - logits[target]; lse: (B, T) log-sum-exp over the V real columns;
// logits: (B, T, Vp); targets: (B, T) in [0, V).
template <typename F>
void crossentropy_forward(F* losses, F* lse, const F* logits, const int32_t* targets, int64_t B, int64_t T,
                          int64_t V, int64_t Vp);

// logits: (B, T, Vp), IN: logits, OUT: dlogits = dloss * (softmax - onehot(target)), with
// zeros in the padded columns. lse: (B, T) from crossentropy_forward; dloss: the gradient of the
// final loss with respect to each row's loss (1/(B*T) for the mean).
template <typename F>
void crossentropy_softmax_backward(F* logits, const F* lse, const int32_t* targets, F dloss, int64_t B,
                                   int64_t T, int64_t V, int64_t Vp);

// The bf16 step's form: dlogits (B, T, Vp) = the gradient above rounded to bf16, written straight
// from the fp32 logits (left as they are), bit for bit what crossentropy_softmax_backward and then
// ConvertToBf16 give, without the fp32 gradient's write and second read (2 x 51 MB for GPT-2 at
// B*T = 256).
void crossentropy_softmax_backward_bf16(uint16_t* dlogits, const float* logits, const float* lse,
                                        const int32_t* targets, float dloss, int64_t B, int64_t T, int64_t V,
                                        int64_t Vp);

}  // namespace model

#endif  // MODEL_CROSSENTROPY_CPU_H_
