// Where training batches come from (nanoGPT's bench.py, real_data True / False):
//  - TokenFileBatchSource: B random windows of T+1 tokens from a memory-mapped token file,
//    window starts drawn from a seeded RNG (nanoGPT's get_batch: start in [0, n - T)).
//  - A fixed random batch: drawn once from a seed and returned on every call, so the data path
//    costs nothing (a different task than real data: its loss says nothing about learning).
#ifndef MODEL_DATA_BATCH_SOURCE_H_
#define MODEL_DATA_BATCH_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/data/batch.h"
#include "model/data/token_file.h"

namespace model {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Fills `batch` (resized to B*T). Errors: a token outside [0, vocab) in the data.
  virtual absl::Status Next(Batch* batch) = 0;
  virtual std::string Describe() const = 0;
};

// The tokens a token-file source checks against the vocabulary when it is made (128 MiB of the
// file); past them, each window is checked as it is drawn, so a large file is never read whole.
inline constexpr int64_t kUpFrontCheckTokens = int64_t{64} << 20;

// Errors: B or T < 1, vocab < 1, a file with fewer than T+1 tokens ("too short"), or a token at or
// above vocab among the first kUpFrontCheckTokens (naming it and its position).
// `up_front` (tests): how many tokens to check at start instead of kUpFrontCheckTokens.
absl::StatusOr<std::unique_ptr<BatchSource>> MakeTokenFileBatchSource(std::shared_ptr<const TokenFile> file,
                                                                      int B, int T, int vocab, uint64_t seed,
                                                                      int64_t up_front = kUpFrontCheckTokens);

// Errors: B, T or vocab < 1.
absl::StatusOr<std::unique_ptr<BatchSource>> MakeFixedRandomBatchSource(int B, int T, int vocab,
                                                                        uint64_t seed);

// The batch such a source returns: B x T inputs, then B x T targets, uniform in [0, vocab) from
// `seed`. Errors as MakeFixedRandomBatchSource.
absl::StatusOr<Batch> FixedRandomBatch(int B, int T, int vocab, uint64_t seed);

}  // namespace model

#endif  // MODEL_DATA_BATCH_SOURCE_H_
