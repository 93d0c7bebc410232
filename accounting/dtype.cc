// Dtype names, parsing and element sizes.
#include "accounting/dtype.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace accounting {

const std::string& DtypeName(Dtype dtype) {
  static const std::string* names[] = {new std::string("fp32"), new std::string("tf32"),
                                       new std::string("bf16"), new std::string("fp16"),
                                       new std::string("fp8")};
  return *names[static_cast<int>(dtype)];
}

const std::string& AllowedDtypeNames() {
  static const std::string* names = new std::string("fp32, tf32, bf16, fp16, fp8");
  return *names;
}

absl::StatusOr<Dtype> ParseDtype(std::string_view name) {
  std::string s = absl::AsciiStrToLower(std::string(name));
  if (s == "fp32" || s == "float32" || s == "float") return Dtype::kFp32;
  if (s == "tf32") return Dtype::kTf32;
  if (s == "bf16" || s == "bfloat16") return Dtype::kBf16;
  if (s == "fp16" || s == "float16" || s == "half") return Dtype::kFp16;
  if (s == "fp8") return Dtype::kFp8;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", std::string(name), "': allowed are ", AllowedDtypeNames()));
}

int BytesPerElement(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp32:
    case Dtype::kTf32:  // tf32 is a math mode on fp32 storage
      return 4;
    case Dtype::kBf16:
    case Dtype::kFp16: return 2;
    case Dtype::kFp8: return 1;
  }
  return 0;
}

}  // namespace accounting
