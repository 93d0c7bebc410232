// How a backward kernel writes a parameter gradient: added to what the buffer holds (gradient
// accumulation across micro-batches, llm.c's convention) or written over it (the first write of
// a step after ZeroGrad, which then needs no pass that zeroes the buffer first).
#ifndef MODEL_GRAD_WRITE_H_
#define MODEL_GRAD_WRITE_H_

namespace model {

enum class GradWrite { kAccumulate, kOverwrite };

}  // namespace model

#endif  // MODEL_GRAD_WRITE_H_
