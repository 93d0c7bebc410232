// --help that exits 0 with the program's own flags (flags_main.h).
#include "harness/flags_main.h"

#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"

namespace harness {

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--")) break;
    for (const char* h : {"--help", "-help", "-h", "--helpfull", "-helpfull", "--helpshort", "-helpshort"}) {
      if (!std::strcmp(argv[i], h)) return true;
    }
  }
  return false;
}

void PrintFlagsHelp(const std::string& usage, std::FILE* out) {
  std::fprintf(out, "%s\n\nFlags:\n", usage.c_str());
  std::map<std::string, absl::CommandLineFlag*> mine;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    // Abseil's own (--flagfile, --fromenv, --undefok, --help...) are not this program's.
    if (absl::StrContains(flag->Filename(), "absl/")) continue;
    mine[std::string(name)] = flag;
  }
  for (const auto& [name, flag] : mine) {
    std::fprintf(out, "  --%s (default: \"%s\")\n      %s\n", name.c_str(), flag->DefaultValue().c_str(),
                 flag->Help().c_str());
  }
}

std::vector<char*> ParseFlagsOrExit(int argc, char** argv, const std::string& usage) {
  absl::SetProgramUsageMessage(usage);
  if (WantsHelp(argc, argv)) {
    PrintFlagsHelp(usage);
    std::fflush(stdout);
    std::exit(0);
  }
  return absl::ParseCommandLine(argc, argv);
}

}  // namespace harness
