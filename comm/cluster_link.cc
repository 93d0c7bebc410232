// LinkRateBps, LinkDescription: //tools:cluster's link, read from the environment.
#include "comm/cluster_link.h"

#include <cmath>
#include <cstdlib>

namespace comm {

double LinkRateBps() {
  const char* r = std::getenv("MLBENCH_LINK_RATE_BPS");
  if (r == nullptr) return 0;
  char* end = nullptr;
  const double v = std::strtod(r, &end);
  return end != r && *end == '\0' && std::isfinite(v) && v > 0 ? v : 0;
}

std::string LinkDescription() {
  const char* link = std::getenv("MLBENCH_CLUSTER_LINK");
  return link != nullptr ? link : "";
}

}  // namespace comm
