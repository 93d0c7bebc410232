#include "harness/json_text.h"

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

}  // namespace harness
