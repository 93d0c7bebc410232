// A nanoGPT token file (train.bin / val.bin: a flat array of little-endian uint16 token ids,
// no header), memory-mapped read-only once and shared by the batch sources that read it.
#ifndef MODEL_DATA_TOKEN_FILE_H_
#define MODEL_DATA_TOKEN_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace model {

class TokenFile {
 public:
  // Errors: NotFound for a missing file; InvalidArgument for a directory, an empty file or an
  // odd byte count; the message names the path.
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
