// make_tokens: writes a nanoGPT token file (flat little-endian uint16 tokens, no header).
//   bazel run //tools:make_tokens -- --in=FILE.txt --out=train.bin     byte-level tokens
//   bazel run //tools:make_tokens -- --random=N --out=train.bin [--vocab=50257 --seed=1337]
// Relative paths are taken from the directory bazel run was started in. The file is written to
// a temporary name and renamed, so a failure leaves nothing behind. Exit code 0 on success,
// 1 with a message naming the problem otherwise.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "model/data/token_writer.h"

ABSL_FLAG(std::string, in, "", "text file to tokenise, one token per byte (0..255)");
ABSL_FLAG(int64_t, random, 0, "instead of --in: write this many uniformly random tokens");
ABSL_FLAG(int, vocab, 50257, "with --random: tokens are drawn from [0, vocab), vocab <= 65536");
ABSL_FLAG(uint64_t, seed, 1337, "with --random: RNG seed");
ABSL_FLAG(std::string, out, "", "token file to write (e.g. train.bin)");

namespace {

// bazel run executes in the runfiles tree; resolve relative paths against the user's cwd.
std::string UserPath(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || wd == nullptr) return path;
  return std::string(wd) + "/" + path;
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "make_tokens: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "writes a nanoGPT uint16 token file: --in=FILE.txt --out=train.bin, or "
      "--random=N --out=train.bin");
  absl::ParseCommandLine(argc, argv);
  const std::string in = absl::GetFlag(FLAGS_in);
  const int64_t random = absl::GetFlag(FLAGS_random);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) return Fail("--out is required (the token file to write)");
  if (in.empty() == (random == 0)) {
    return Fail("give exactly one of --in=FILE.txt or --random=N (N >= 1)");
  }
  absl::StatusOr<std::vector<uint16_t>> tokens =
      in.empty() ? model::RandomTokens(random, absl::GetFlag(FLAGS_vocab), absl::GetFlag(FLAGS_seed))
                 : model::ByteTokensFromFile(UserPath(in));
  if (!tokens.ok()) return Fail(std::string(tokens.status().message()));
  const std::string path = UserPath(out);
  if (absl::Status st = model::WriteTokenFile(path, *tokens); !st.ok()) {
    return Fail(std::string(st.message()));
  }
  std::printf("wrote %zu tokens (%zu bytes) to %s\n", tokens->size(), 2 * tokens->size(),
              path.c_str());
  return 0;
}
