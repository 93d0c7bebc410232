// The link between hosts as //tools:cluster describes it to every rank, through the environment:
//   MLBENCH_LINK_RATE_BPS  the rate tc shaped each host's link to, bits/s (0: unshaped)
//   MLBENCH_CLUSTER_LINK   a description ("veth through a bridge, shaped to 1gbit per host ...")
// Outside //tools:cluster both are unset: the link is unknown.
#ifndef COMM_CLUSTER_LINK_H_
#define COMM_CLUSTER_LINK_H_

#include <string>

namespace comm {

// The shaped rate in bits/s; 0 when unset, unshaped or not a positive finite number.
double LinkRateBps();
// The description, or "" when unset.
std::string LinkDescription();

}  // namespace comm

#endif  // COMM_CLUSTER_LINK_H_
