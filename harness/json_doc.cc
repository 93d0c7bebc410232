// nlohmann::json's parse and dump, compiled once; see json_doc.h.
#include "harness/json_doc.h"

#include "absl/strings/str_cat.h"

namespace harness {

nlohmann::json ParseJson(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

absl::StatusOr<nlohmann::json> ParseJsonOrError(std::string_view text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser gave up. Give line and column as well.
    const size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat("malformed JSON in ", what, " at byte offset ", byte,
                                                   " (line ", line, ", column ", col, "): ", e.what()));
  } catch (const nlohmann::json::exception& e) {
    // Well-formed but not representable, e.g. a number past the range of a double (out_of_range
    // 406); found by fuzz/gate_run_fuzz, it aborted gate.
    return absl::InvalidArgumentError(absl::StrCat("unreadable JSON in ", what, ": ", e.what()));
  }
}

nlohmann::ordered_json ParseOrderedJson(std::string_view text) {
  return nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string DumpJson(const nlohmann::json& j, int indent) { return j.dump(indent); }

std::string DumpJson(const nlohmann::ordered_json& j, int indent) { return j.dump(indent); }

}  // namespace harness
