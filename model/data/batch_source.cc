// Token-file windows and the fixed random batch.
#include "model/data/batch_source.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "model/data/rng.h"

namespace model {
namespace {

absl::Status CheckShape(int B, int T, int vocab) {
  if (B < 1) return absl::InvalidArgumentError(absl::StrCat("batch=", B, " is invalid: must be >= 1"));
  if (T < 1) return absl::InvalidArgumentError(absl::StrCat("seq=", T, " is invalid: must be >= 1"));
  if (vocab < 1) {
    return absl::InvalidArgumentError(absl::StrCat("vocab=", vocab, " is invalid: must be >= 1"));
  }
  return absl::OkStatus();
}

class TokenFileBatchSource final : public BatchSource {
 public:
  TokenFileBatchSource(std::shared_ptr<const TokenFile> file, int B, int T, int vocab, uint64_t seed,
                       int64_t checked)
      : file_(std::move(file)), B_(B), T_(T), vocab_(vocab), checked_(checked), rng_(seed) {}

  absl::Status Next(Batch* batch) override {
    batch->B = B_;
    batch->T = T_;
    batch->inputs.resize(static_cast<size_t>(B_) * T_);
    batch->targets.resize(static_cast<size_t>(B_) * T_);
    const uint16_t* data = file_->tokens();
    const uint64_t starts = static_cast<uint64_t>(file_->num_tokens() - T_);
    for (int b = 0; b < B_; ++b) {
      const int64_t ix = static_cast<int64_t>(rng_.UniformInt(starts));
      for (int t = 0; t <= T_; ++t) {
        const int tok = data[ix + t];
        if (tok >= vocab_) {
          return absl::InvalidArgumentError(absl::StrCat("token ", tok, " at index ", ix + t, " of '",
                                                         file_->path(), "' is out of range: must be in [0, ",
                                                         vocab_, ") for this model's vocab"));
        }
        if (t < T_) batch->inputs[static_cast<size_t>(b) * T_ + t] = tok;
        if (t > 0) batch->targets[static_cast<size_t>(b) * T_ + t - 1] = tok;
      }
    }
    return absl::OkStatus();
  }

  std::string Describe() const override {
    const bool whole = file_->num_tokens() <= checked_;
    return absl::StrCat("token file '", file_->path(), "' (", file_->num_tokens(), " tokens), random windows",
                        whole ? "" : absl::StrCat("; the first ", checked_,
                                                  " tokens checked against the vocabulary at start, each "
                                                  "window as it is drawn"));
  }

 private:
  std::shared_ptr<const TokenFile> file_;
  int B_, T_, vocab_;
  int64_t checked_;  // tokens checked against the vocabulary at start
  Rng rng_;
};

Batch RandomBatchOf(int B, int T, int vocab, uint64_t seed) {
  Batch b;
  b.B = B;
  b.T = T;
  Rng rng(seed);
  const size_t n = static_cast<size_t>(B) * T;
  b.inputs.resize(n);
  b.targets.resize(n);
  for (size_t i = 0; i < n; ++i) b.inputs[i] = static_cast<int32_t>(rng.UniformInt(vocab));
  for (size_t i = 0; i < n; ++i) b.targets[i] = static_cast<int32_t>(rng.UniformInt(vocab));
  return b;
}

class FixedRandomBatchSource final : public BatchSource {
 public:
  FixedRandomBatchSource(int B, int T, int vocab, uint64_t seed) : batch_(RandomBatchOf(B, T, vocab, seed)) {}

  absl::Status Next(Batch* batch) override {
    *batch = batch_;
    return absl::OkStatus();
  }

  std::string Describe() const override { return "fixed random batch"; }

 private:
  Batch batch_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<BatchSource>> MakeTokenFileBatchSource(std::shared_ptr<const TokenFile> file,
                                                                      int B, int T, int vocab, uint64_t seed,
                                                                      int64_t up_front_check) {
  if (auto st = CheckShape(B, T, vocab); !st.ok()) return st;
  if (file == nullptr) return absl::InvalidArgumentError("token file is null");
  if (file->num_tokens() < static_cast<int64_t>(T) + 1) {
    return absl::InvalidArgumentError(absl::StrCat("token file '", file->path(), "' is too short: it holds ",
                                                   file->num_tokens(), " tokens; a window of seq=", T,
                                                   " needs at least ", T + 1));
  }
  // The first kUpFrontCheckTokens tokens are checked up front (128 MiB: a tenth of a second), so a
  // file made for another vocabulary fails before any step runs instead of in the middle; every
  // window is checked again as it is drawn (Next), so a larger file is never read whole (a 100 GiB
  // file took 107 s, silently, when every token was checked here).
  const uint16_t* tokens = file->tokens();
  const int64_t up_front = std::min(file->num_tokens(), up_front_check);
  for (int64_t i = 0; i < up_front; ++i) {
    if (tokens[i] >= vocab) {
      return absl::InvalidArgumentError(absl::StrCat(
          "token file '", file->path(), "' holds token ", tokens[i], " at position ", i,
          ", outside the vocabulary [0, ", vocab, "); was it made for another tokenizer or --vocab?"));
    }
  }
  return std::unique_ptr<BatchSource>(new TokenFileBatchSource(std::move(file), B, T, vocab, seed, up_front));
}

absl::StatusOr<std::unique_ptr<BatchSource>> MakeFixedRandomBatchSource(int B, int T, int vocab,
                                                                        uint64_t seed) {
  if (auto st = CheckShape(B, T, vocab); !st.ok()) return st;
  return std::unique_ptr<BatchSource>(new FixedRandomBatchSource(B, T, vocab, seed));
}

absl::StatusOr<Batch> FixedRandomBatch(int B, int T, int vocab, uint64_t seed) {
  if (auto st = CheckShape(B, T, vocab); !st.ok()) return st;
  return RandomBatchOf(B, T, vocab, seed);
}

}  // namespace model
