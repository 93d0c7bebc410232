// Which of ddp_step's flags every rank must be given alike, derived from the binary's flag table
// (every Abseil flag linked in: gpt_step's shared flags, ddp_step's own, any added later) rather
// than from a list kept by hand: a flag that changes the numbers is compared unless it is named
// here as a rank's own, with the reason. Ranks given different --cpu_gemm, --lr or --batch are
// refused before any step; a flag only rank 0 acts on (--json_out) must still be given to every
// rank or to none, so that one given to another rank alone is not silently ignored.
#ifndef MACRO_RANK_FLAGS_H_
#define MACRO_RANK_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace macro {

// A flag left out of the value comparison across ranks, and why.
struct RankOwnFlag {
  std::string name;  // without the dashes
  // Its value may differ across ranks, but it is given (a value other than its default) to
  // every rank or to none.
  bool given_on_all_or_none = false;
  std::string reason;
};

// One line per flag of the flag table, sorted by name: "--name=value" (its current value) for a
// flag that must agree; "--name given" or "--name not given" for a rank's own flag with
// given_on_all_or_none; none for the other flags of `own`, nor for Abseil's own (--flagfile,
// --fromenv, --tryfromenv, --undefok and the --help family, defined in absl/flags/: how flags are
// read, not what they are; the values they set are compared flag by flag). Fails when a name of
// `own` is not in the table (a renamed flag must not silently join the comparison).
absl::StatusOr<std::string> RankAgreementLines(const std::vector<RankOwnFlag>& own);

// The lines of `mine` that differ from `rank0`'s (both from RankAgreementLines of one binary),
// each as "--cpu_gemm=openblas (rank 0: --cpu_gemm=onednn)".
std::vector<std::string> FlagDifferences(const std::string& rank0, const std::string& mine);

}  // namespace macro

#endif  // MACRO_RANK_FLAGS_H_
