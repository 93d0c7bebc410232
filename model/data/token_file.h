// A nanoGPT token file (train.bin / val.bin: a flat array of little-endian uint16 token ids,
// no header), memory-mapped read-only once and shared by the batch sources that read it.
#ifndef MODEL_DATA_TOKEN_FILE_H_
#define MODEL_DATA_TOKEN_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace model {

// The largest token file opened: 1 TiB, 550 billion tokens, some 60x OpenWebText's train.bin
// (9 billion tokens, 18 GB) and 50x FineWeb-Edu's 10B sample. The format itself (a headerless
// array of uint16) has no limit; a larger file is far more likely a wrong path (a disk image, a
// device) than a dataset. The file is memory-mapped, never read whole. A file that shrinks while
// it is mapped (truncated or rewritten during a run) would make the next read past its new end a
// SIGBUS: the process instead prints "<program>: error: the token file '<path>' changed size while
// it was mapped (...)" and exits with status 2.
inline constexpr int64_t kMaxTokenFileBytes = int64_t{1} << 40;

class TokenFile {
 public:
  // Errors: NotFound for a missing file; InvalidArgument for a directory or another file that
  // is not a regular one, an empty file, an odd byte count (naming the size: the last byte
  // would be half a token) or one over kMaxTokenFileBytes; the message names the path.
  static absl::StatusOr<std::unique_ptr<TokenFile>> Open(const std::string& path);
  ~TokenFile();
  TokenFile(const TokenFile&) = delete;
  TokenFile& operator=(const TokenFile&) = delete;

  const std::string& path() const { return path_; }
  int64_t num_tokens() const { return num_tokens_; }
  const uint16_t* tokens() const { return tokens_; }  // (num_tokens)

 private:
  TokenFile() = default;
  std::string path_;
  const uint16_t* tokens_ = nullptr;
  int64_t num_tokens_ = 0;
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
};

}  // namespace model

#endif  // MODEL_DATA_TOKEN_FILE_H_
