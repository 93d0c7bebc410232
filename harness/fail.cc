// Fail (fail.h).
#include "harness/fail.h"

#include <cstdio>
#include <string>

#include "harness/exit_codes.h"

namespace harness {

int Fail(absl::string_view tool, const absl::Status& status) {
  std::fprintf(stderr, "%s: error: %s\n", std::string(tool).c_str(), std::string(status.message()).c_str());
  return kExitFailure;
}

}  // namespace harness
