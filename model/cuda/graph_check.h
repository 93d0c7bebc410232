// The one-time check the CUDA model makes when it captures its train step as a CUDA graph
// (CudaGptOptions::cuda_graph): from the same saved state and batch, one uncaptured step and the
// captured graph's first replay must agree. Each side gives the step's loss (its forward) and a
// probe: the loss of one more forward over the same batch with the updated parameters, which
// depends on the backward and AdamW too. Pure arithmetic here; the model runs the steps.
#ifndef MODEL_CUDA_GRAPH_CHECK_H_
#define MODEL_CUDA_GRAPH_CHECK_H_

#include "absl/status/status.h"

namespace model {
namespace cuda {

struct GraphCheck {
  float loss_uncaptured = 0, loss_graph = 0;    // the step's own loss
  float probe_uncaptured = 0, probe_graph = 0;  // the next forward's, after the update
};

// Same kernels with the same arguments give the same bits (the emulator's tests assert
// equality); on a GPU the atomics of the embedding backward sum in no fixed order, which moves
// the updated weights by rounding only. A graph that misses or repeats an operation, or bakes a
// wrong argument, moves the probe far more than this.
inline constexpr double kGraphCheckRelTolerance = 1e-4;

// OK when every value is finite and each pair agrees within kGraphCheckRelTolerance of
// max(1, |uncaptured|); else Internal naming the four values.
absl::Status CheckGraphAgreement(const GraphCheck& c);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_GRAPH_CHECK_H_
