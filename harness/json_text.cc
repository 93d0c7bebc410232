#include "harness/json_text.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace harness {

std::string RewriteOutsideJsonStrings(
    const std::string& text,
    const std::function<size_t(const std::string& text, size_t i, std::string* out)>& replace) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    const size_t n = replace(text, i, &out);
    if (n == 0) {
      out += c;
    } else {
      i += n - 1;
    }
  }
  return out;
}

std::string QuoteNonFiniteTokens(const std::string& text) {
  return harness::RewriteOutsideJsonStrings(
      text, [](const std::string& text, size_t i, std::string* out) -> size_t {
        for (const char* token : {"-Infinity", "Infinity", "-NaN", "NaN", "-nan", "nan", "-inf", "inf"}) {
          const size_t n = std::char_traits<char>::length(token);
          if (text.compare(i, n, token) != 0) continue;
          const bool letter_after =
              i + n < text.size() && std::isalnum(static_cast<unsigned char>(text[i + n]));
          if (letter_after) continue;
          std::string t = token;
          if (absl::EqualsIgnoreCase(t, "nan") || absl::EqualsIgnoreCase(t, "-nan"))
            t = "NaN";
          else if (t == "inf")
            t = "Infinity";
          else if (t == "-inf")
            t = "-Infinity";
          absl::StrAppend(out, "\"", t, "\"");
          return n;
        }
        return 0;
      });
}

}  // namespace harness
