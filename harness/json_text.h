// Rewriting the text of a JSON document outside its string literals, for the bare tokens Google
// Benchmark writes where a counter is not finite (NaN, Infinity), which JSON parsers reject.
#ifndef HARNESS_JSON_TEXT_H_
#define HARNESS_JSON_TEXT_H_

#include <cstddef>
#include <functional>
#include <string>

namespace harness {

// Copies `text`, string literals (escapes included) as they are; at each position i outside a
// string, `replace(text, i, &out)` may append a replacement to out and return how many
// characters of text it stands for (0: none, and the character is copied).
std::string RewriteOutsideJsonStrings(
    const std::string& text,
    const std::function<size_t(const std::string& text, size_t i, std::string* out)>& replace);

}  // namespace harness

#endif  // HARNESS_JSON_TEXT_H_
