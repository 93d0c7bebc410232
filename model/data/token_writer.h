// Writing nanoGPT token files (flat little-endian uint16, no header): byte-level tokens from a
// text file (each byte is one token, 0..255) or uniformly random tokens. Files are written to a
// temporary name beside the target and renamed, so a failure never leaves a half-written file.
// Used by tools/make_tokens and by tests.
#ifndef MODEL_DATA_TOKEN_WRITER_H_
#define MODEL_DATA_TOKEN_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace model {

// Errors: empty token list; the file cannot be written (the message names the path).
absl::Status WriteTokenFile(const std::string& path, absl::Span<const uint16_t> tokens);

// The largest text file ByteTokensFromFile reads: 1 GiB (2 GiB of tokens in memory). The byte
// tokeniser is for test corpora; a real dataset is tokenised by nanoGPT's prepare.py. A larger
// file, or a stream that does not end (/dev/zero), is refused before or while it is read
// (harness/bounded_read.h).
inline constexpr uint64_t kMaxTextBytes = uint64_t{1} << 30;

// One token per byte of the file. Errors: missing or unreadable file, empty file, a file over
// kMaxTextBytes.
absl::StatusOr<std::vector<uint16_t>> ByteTokensFromFile(const std::string& text_path);

// n tokens uniform in [0, vocab). Errors: n < 1, vocab outside [1, 65536].
absl::StatusOr<std::vector<uint16_t>> RandomTokens(int64_t n, int vocab, uint64_t seed);

}  // namespace model

#endif  // MODEL_DATA_TOKEN_WRITER_H_
