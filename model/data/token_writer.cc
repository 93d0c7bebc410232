// Byte-level and random token files, written atomically.
#include "model/data/token_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "model/data/rng.h"

namespace model {

absl::Status WriteTokenFile(const std::string& path, absl::Span<const uint16_t> tokens) {
  if (tokens.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("refusing to write '", path, "' with no tokens: a token file must hold >= 1"));
  }
  // The format is little-endian uint16; this host is little-endian (x86-64, aarch64).
  return harness::WriteFileAtomically(path, [&](std::FILE* f) {
    return std::fwrite(tokens.data(), sizeof(uint16_t), tokens.size(), f) == tokens.size();
  });
}

absl::StatusOr<std::vector<uint16_t>> ByteTokensFromFile(const std::string& text_path) {
  absl::StatusOr<std::string> bytes = harness::ReadFileAtMost(text_path, kMaxTextBytes, "text file");
  if (!bytes.ok()) return bytes.status();
  if (bytes->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("text file '", text_path, "' is empty: nothing to tokenise"));
  }
  std::vector<uint16_t> tokens(bytes->size());
  for (size_t i = 0; i < bytes->size(); ++i) tokens[i] = static_cast<unsigned char>((*bytes)[i]);
  return tokens;
}

absl::StatusOr<std::vector<uint16_t>> RandomTokens(int64_t n, int vocab, uint64_t seed) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("random=", n, " is invalid: must be >= 1"));
  }
  if (vocab < 1 || vocab > 65536) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocab=", vocab, " is invalid: must be in [1, 65536] (uint16 tokens)"));
  }
  Rng rng(seed);
  std::vector<uint16_t> tokens(static_cast<size_t>(n));
  for (auto& t : tokens) t = static_cast<uint16_t>(rng.UniformInt(static_cast<uint64_t>(vocab)));
  return tokens;
}

}  // namespace model
