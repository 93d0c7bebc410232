#include "harness/json_doc.h"

namespace harness {

nlohmann::json ParseJson(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

nlohmann::ordered_json ParseOrderedJson(std::string_view text) {
  return nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string DumpJson(const nlohmann::json& j, int indent) { return j.dump(indent); }

std::string DumpJson(const nlohmann::ordered_json& j, int indent) { return j.dump(indent); }

}  // namespace harness
