// Test fixture: the //tools/gate:gate binary run as a child process from a test that has it in
// its data (gate_test, gate_limits_test, gate_lock_test), and the test's scratch folder.
#ifndef TOOLS_GATE_TESTDATA_GATE_PROCESS_H_
#define TOOLS_GATE_TESTDATA_GATE_PROCESS_H_

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"

namespace testdata {

// $TEST_TMPDIR: the test's own scratch folder.
inline std::string Tmp() { return std::getenv("TEST_TMPDIR"); }

inline std::string GateExe() { return absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/tools/gate/gate"); }

// Runs the gate with `args`, stdout and stderr captured. A failure to start it fails the test
// and comes back as exit code -1 with empty output.
inline harness::ProcessResult Gate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GateExe()};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : harness::ProcessResult{-1, "", ""};
}

}  // namespace testdata

#endif  // TOOLS_GATE_TESTDATA_GATE_PROCESS_H_
