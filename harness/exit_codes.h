// Exit codes shared by every binary of the project, so that a script (CI) can tell a usage
// error from a broken measurement and from a real regression:
//   0  success
//   1  the command line was not understood: an unknown flag or a value Abseil cannot parse
//      (Abseil's own exit code for these)
//   2  bad input or a broken measurement: a flag value out of range, an unreadable or
//      malformed file, an output that could not be written (a full disk, an I/O error, a
//      folder; harness/atomic_file.h), a case that failed its output check or errored, a
//      filter that selects nothing, non-finite or non-positive times, a comparison of nothing
//   3  a performance regression (tools/gate only)
//   4  no baseline for this machine's key, so nothing was compared (tools/gate only; CI then
//      gates A/B against the parent commit)
//   5  a timeout: an MPI rank waited longer than --timeout_s in a collective (another rank
//      died or hung; ddp_step, allreduce)
#ifndef HARNESS_EXIT_CODES_H_
#define HARNESS_EXIT_CODES_H_

namespace harness {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitFailure = 2;
inline constexpr int kExitRegression = 3;
inline constexpr int kExitNoBaseline = 4;
inline constexpr int kExitTimeout = 5;

// The table above, for --help texts.
inline constexpr char kExitCodesHelp[] =
    "Exit status: 0 success; 1 command line not understood (unknown flag, unparsable value);\n"
    "2 bad input or broken measurement (value out of range, bad file, output not written, failed\n"
    "check, empty selection); 3 regression (gate); 4 no baseline for this machine (gate); 5 an MPI\n"
    "rank timed out waiting for the others (ddp_step, allreduce: --timeout_s).";

}  // namespace harness

#endif  // HARNESS_EXIT_CODES_H_
