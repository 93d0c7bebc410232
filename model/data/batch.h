// One batch of training data: B sequences of T token ids and their next-token targets.
// Host memory; a device model copies it in Forward.
#ifndef MODEL_DATA_BATCH_H_
#define MODEL_DATA_BATCH_H_

#include <cstdint>
#include <vector>

namespace model {

struct Batch {
  int B = 0;
  int T = 0;
  std::vector<int32_t> inputs;   // (B, T)
  std::vector<int32_t> targets;  // (B, T): inputs shifted by one position in the token stream
};

}  // namespace model

#endif  // MODEL_DATA_BATCH_H_
