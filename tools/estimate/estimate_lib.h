// //tools:estimate's commands and flags: a calculator for MFU, training time, decode bound,
// roofline and GPT FLOPs, built on //accounting.
//
// One table describes every flag once (name, type, default, help, the commands that take it);
// --help and parsing both come from it. Every command prints its figures with what they were
// computed from (the peak and its source, the convention) and ends with one machine-readable
// line:
//     result: key=value key=value ...
// Bad input (missing, negative or out-of-range values, an unknown GPU, a flag the command does
// not take) is an error naming the flag; the binary exits 2 on it. Numbers accept scientific
// notation (7e9).
#ifndef TOOLS_ESTIMATE_ESTIMATE_LIB_H_
#define TOOLS_ESTIMATE_ESTIMATE_LIB_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace estimate {

inline constexpr int kUsageError = 2;

enum class FlagType {
  kNumber,   // a finite number, scientific notation allowed
  kInteger,  // an integer >= 1, scientific notation allowed (1e3)
  kBool,     // --name, --noname, --name=true|false
  kText,     // a name or a path
};

struct FlagSpec {
  std::string name;
  FlagType type;
  std::string default_value;  // "" = none: required or optional, as the command says
  std::string help;
  std::vector<std::string> commands;  // the commands that take it
};

// Every flag, once.
const std::vector<FlagSpec>& FlagTable();
const FlagSpec* FindFlag(const std::string& name);

struct CommandSpec {
  std::string name;
  std::string synopsis;  // "mfu --params=N ..."
  std::string what;      // what it computes
};

const std::vector<CommandSpec>& Commands();
const CommandSpec* FindCommand(const std::string& name);

// The flags `command` takes, in table order.
std::vector<std::string> CommandFlags(const std::string& command);

// Flag values: name -> value as given (booleans as "true"/"false"), defaults filled in.
using FlagValues = std::map<std::string, std::string>;

// Parses the arguments after the command: --name=value, --name value, and for booleans
// --name / --noname. Errors name the argument: a flag the command does not take, an unknown
// flag, a boolean that is not true or false, a missing value, a positional argument.
absl::StatusOr<FlagValues> ParseFlags(const std::string& command, const std::vector<std::string>& args);

std::string GeneralHelp();                             // every command's synopsis
std::string CommandHelp(const std::string& command);  // one command: synopsis, what, its flags

// Runs one command on parsed flags: the report it prints (ending in the `result:` line), or the
// error naming the flag.
absl::StatusOr<std::string> RunCommand(const std::string& command, const FlagValues& flags);

// The whole command line (args without the program name): what to print on stdout and stderr,
// and the exit status: 0, or kUsageError for any bad input.
struct Outcome {
  int exit_code = 0;
  std::string out, err;
};
Outcome Main(const std::vector<std::string>& args);

}  // namespace estimate

#endif  // TOOLS_ESTIMATE_ESTIMATE_LIB_H_
