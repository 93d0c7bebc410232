// Command-line parsing for the Abseil-flag binaries and tools (gpt_step, bench, gate,
// make_tokens): --help is an answer, not an error. Abseil 20220623's ParseCommandLine handles
// --help itself and exits 1 (absl/flags/internal/usage.cc, HandleUsageFlags returns 1 for
// --help, --helpfull, --helpshort...), and lists every flag of every library; here --help
// prints the program's usage message and its own flags, and exits 0. An unknown flag or an
// unparsable value stays Abseil's error, exit 1 (harness/exit_codes.h).
#ifndef HARNESS_FLAGS_MAIN_H_
#define HARNESS_FLAGS_MAIN_H_

#include <cstdio>
#include <string>
#include <vector>

namespace harness {

// True when argv (before any "--") asks for help: --help, -h, -help, --helpfull, --helpshort.
bool WantsHelp(int argc, char** argv);

// `usage`, then "Flags:" and every flag not defined by Abseil itself, sorted by name, with its
// default and help text.
void PrintFlagsHelp(const std::string& usage, std::FILE* out = stdout);

// Sets `usage` as the program usage message (absl::SetProgramUsageMessage; call once per
// process), prints PrintFlagsHelp and exits 0 on --help, else returns absl::ParseCommandLine's
// positional arguments (argv[0] first); Abseil exits 1 on an unknown flag or a bad value.
std::vector<char*> ParseFlagsOrExit(int argc, char** argv, const std::string& usage);

}  // namespace harness

#endif  // HARNESS_FLAGS_MAIN_H_
