// A command line as main() receives it, built from strings: argc, and a char* array that ends in
// nullptr and points into the strings the Argv owns. For tests of argv parsers and for execvp.
// argc is a plain member so that a parser that removes what it consumes can lower it.
#ifndef HARNESS_ARGV_H_
#define HARNESS_ARGV_H_

#include <string>
#include <utility>
#include <vector>

namespace harness {

class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    for (std::string& a : args_) pointers_.push_back(a.data());
    pointers_.push_back(nullptr);
    argc = static_cast<int>(args_.size());
  }
  Argv(const Argv&) = delete;  // the pointers point into this object's strings
  Argv& operator=(const Argv&) = delete;

  char** argv() { return pointers_.data(); }

  int argc = 0;

 private:
  std::vector<std::string> args_;
  std::vector<char*> pointers_;
};

}  // namespace harness

#endif  // HARNESS_ARGV_H_
