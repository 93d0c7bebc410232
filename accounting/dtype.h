// Numeric formats that peaks and byte counts are keyed by: fp32, tf32, bf16, fp16, fp8.
// tf32 is a tensor-core math mode on fp32 storage, so it moves 4 bytes per element.
#ifndef ACCOUNTING_DTYPE_H_
#define ACCOUNTING_DTYPE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace accounting {

enum class Dtype { kFp32, kTf32, kBf16, kFp16, kFp8 };

// "fp32", "tf32", "bf16", "fp16", "fp8". A std::string (not a string_view): Debian's Abseil is
// built with its own absl::string_view, so absl::StrCat does not take std::string_view.
const std::string& DtypeName(Dtype dtype);

// Parses one of the names above (case-insensitive; "float32", "bfloat16", "float16" are
// accepted too). Error: names the value and the allowed set.
absl::StatusOr<Dtype> ParseDtype(std::string_view name);

// Storage bytes per element: fp32 4, tf32 4 (fp32 storage), bf16 2, fp16 2, fp8 1.
int BytesPerElement(Dtype dtype);

// "fp32, tf32, bf16, fp16, fp8": for messages.
const std::string& AllowedDtypeNames();

}  // namespace accounting

#endif  // ACCOUNTING_DTYPE_H_
