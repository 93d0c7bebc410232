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

// Replaces the bare tokens NaN, -NaN, nan, Infinity, -Infinity, inf, -inf outside JSON strings by
// the strings "NaN", "Infinity", "-Infinity", so a standard parser accepts the text (Google
// Benchmark 1.7 writes them, e.g. the coefficient of variation of a counter that is always 0).
std::string QuoteNonFiniteTokens(const std::string& text);

}  // namespace harness

#endif  // HARNESS_JSON_TEXT_H_
