// //tools:estimate: a calculator for MFU, training time, decode bound, roofline and GPT FLOPs,
// built on //accounting. Usage: estimate <command> [flags]; `estimate <command> --help`.
// The commands, their flags and the exit status: estimate_lib.h.
#include <cstdio>
#include <string>
#include <vector>

#include "tools/estimate/estimate_lib.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const estimate::Outcome o = estimate::Main(args);
  std::fputs(o.out.c_str(), stdout);
  std::fputs(o.err.c_str(), stderr);
  return o.exit_code;
}
