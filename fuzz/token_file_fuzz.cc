// Fuzzes the token file reader (model/data/token_file.h) and the batch source over it
// (model/data/batch_source.h): input = 4 parameter bytes (B, T, vocab) + the file's bytes.
// Properties: a file opens exactly when it is non-empty with an even byte count; every error
// names the file; every batch drawn holds tokens in [0, vocab) (ids past the vocabulary must
// be refused, never indexed into the embedding).
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "fuzz/fuzz_util.h"
#include "model/data/batch.h"
#include "model/data/batch_source.h"
#include "model/data/token_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const int B = 1 + in.U8() % 4;
  const int T = 1 + in.U8() % 32;
  const int vocab = in.U16();  // 0 included: an invalid vocabulary must be refused
  const std::string body = in.Rest();
  fuzz::MemFile file(body);

  auto opened = model::TokenFile::Open(file.path());
  const bool valid = !body.empty() && body.size() % 2 == 0;
  FUZZ_CHECK(opened.ok() == valid);
  if (!opened.ok()) {
    FUZZ_CHECK(absl::StrContains(opened.status().message(), file.path()));
    return 0;
  }
  const model::TokenFile& tf = **opened;
  FUZZ_CHECK(tf.num_tokens() * 2 == static_cast<int64_t>(body.size()));
  for (int64_t i = 0; i < tf.num_tokens(); ++i) {
    const uint16_t want = static_cast<uint16_t>(static_cast<uint8_t>(body[2 * i]) |
                                                (static_cast<uint8_t>(body[2 * i + 1]) << 8));
    FUZZ_CHECK(tf.tokens()[i] == want);  // little-endian uint16, no header
  }

  std::shared_ptr<const model::TokenFile> shared(std::move(*opened));
  auto source = model::MakeTokenFileBatchSource(shared, B, T, vocab, /*seed=*/size);
  if (!source.ok()) return 0;
  FUZZ_CHECK(vocab >= 1 && shared->num_tokens() >= T + 1);
  for (int step = 0; step < 3; ++step) {
    model::Batch batch;
    if (!(*source)->Next(&batch).ok()) break;
    FUZZ_CHECK(batch.inputs.size() == static_cast<size_t>(B) * T);
    FUZZ_CHECK(batch.targets.size() == batch.inputs.size());
    for (size_t i = 0; i < batch.inputs.size(); ++i) {
      FUZZ_CHECK(batch.inputs[i] >= 0 && batch.inputs[i] < vocab);
      FUZZ_CHECK(batch.targets[i] >= 0 && batch.targets[i] < vocab);
    }
  }
  return 0;
}
