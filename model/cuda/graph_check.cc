// CheckGraphAgreement (graph_check.h).
#include "model/cuda/graph_check.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace model {
namespace cuda {
namespace {

bool Agree(float uncaptured, float graph) {
  if (!std::isfinite(uncaptured) || !std::isfinite(graph)) return false;
  const double scale = std::max(1.0, std::fabs(static_cast<double>(uncaptured)));
  return std::fabs(static_cast<double>(graph) - uncaptured) <= kGraphCheckRelTolerance * scale;
}

}  // namespace

absl::Status CheckGraphAgreement(const GraphCheck& c) {
  if (Agree(c.loss_uncaptured, c.loss_graph) && Agree(c.probe_uncaptured, c.probe_graph)) {
    return absl::OkStatus();
  }
  return absl::InternalError(absl::StrCat(
      "--cuda_graph: the captured train step disagrees with the uncaptured one from the same state: loss ",
      c.loss_graph, " (graph) vs ", c.loss_uncaptured, " (uncaptured), next forward's loss ", c.probe_graph,
      " vs ", c.probe_uncaptured, " (allowed: relative ", kGraphCheckRelTolerance,
      "); something in the step is not captured or a kernel argument changes between steps"));
}

}  // namespace cuda
}  // namespace model
