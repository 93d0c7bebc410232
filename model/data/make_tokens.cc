// make_tokens: writes a nanoGPT token file (flat little-endian uint16 tokens, no header).
//   bazel run //tools:make_tokens -- --in=FILE.txt --out=train.bin     byte-level tokens
//   bazel run //tools:make_tokens -- --random=N --out=train.bin [--vocab=50257 --seed=1337]
// Relative paths are taken from the directory bazel run was started in (harness/user_path.h). The file is
// written by harness/atomic_file.h: a regular file through a temporary name and a rename, so a failure
// leaves nothing behind; a device or FIFO in place. Exit code 0 on success, 2 with a message naming the
// problem otherwise (harness/exit_codes.h; 1 for a flag Abseil cannot parse).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"
#include "harness/exit_codes.h"
#include "harness/flags_main.h"
#include "harness/user_path.h"
#include "model/data/token_writer.h"

ABSL_FLAG(std::string, in, "", "text file to tokenise, one token per byte (0..255)");
ABSL_FLAG(int64_t, random, 0, "instead of --in: write this many uniformly random tokens");
ABSL_FLAG(int, vocab, 50257, "with --random: tokens are drawn from [0, vocab), vocab <= 65536");
ABSL_FLAG(uint64_t, seed, 1337, "with --random: RNG seed");
ABSL_FLAG(std::string, out, "", "token file to write (e.g. train.bin)");

namespace {

int Fail(const std::string& msg) {
  std::fprintf(stderr, "make_tokens: error: %s\n", msg.c_str());
  return harness::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  harness::ParseFlagsOrExit(
      argc, argv,
      "make_tokens: writes a token file in nanoGPT's format (flat little-endian uint16, no header)\n"
      "for gpt_step --data, from a text file (one token per byte) or random tokens.\n\n"
      "Usage: make_tokens --in=FILE.txt --out=train.bin | --random=N --out=train.bin\n"
      "Example: bazel run //tools:make_tokens -- --random=1000000 --out=train.bin\n"
      "Relative paths are relative to the folder bazel run was started from.");
  const std::string in = absl::GetFlag(FLAGS_in);
  const int64_t random = absl::GetFlag(FLAGS_random);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) return Fail("--out is required (the token file to write)");
  if (in.empty() == (random == 0)) {
    return Fail("give exactly one of --in=FILE.txt or --random=N (N >= 1)");
  }
  const std::string path = harness::UserPath(out);
  // Checked before the tokens are made (a large --in takes a while), not after.
  if (absl::Status w = harness::CheckWritable(path); !w.ok())
    return Fail(absl::StrCat("--out: ", w.message()));
  absl::StatusOr<std::vector<uint16_t>> tokens =
      in.empty() ? model::RandomTokens(random, absl::GetFlag(FLAGS_vocab), absl::GetFlag(FLAGS_seed))
                 : model::ByteTokensFromFile(harness::UserPath(in));
  if (!tokens.ok()) return Fail(std::string(tokens.status().message()));
  if (absl::Status st = model::WriteTokenFile(path, *tokens); !st.ok()) {
    return Fail(std::string(st.message()));
  }
  std::printf("wrote %zu tokens (%zu bytes) to %s\n", tokens->size(), 2 * tokens->size(), path.c_str());
  return 0;
}
