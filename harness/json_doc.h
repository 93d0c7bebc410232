// nlohmann::json's parser and serializer, compiled once (json_doc.cc) for every library that
// calls them through these functions. Parse and dump are most of the header's cost to a translation
// unit: each one that calls json::parse or dump itself took about 2 s more to compile (g++ 12,
// -O2, the development VM), and gpt_step's first build had six of them.
#ifndef HARNESS_JSON_DOC_H_
#define HARNESS_JSON_DOC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace harness {

// json::parse(text, nullptr, /*allow_exceptions=*/false): a discarded value (is_discarded())
// where text is not one JSON document.
nlohmann::json ParseJson(std::string_view text);

// Parses `text` as one JSON document. InvalidArgument naming `what` (e.g. "'run.json'"), the
// byte offset, line and column where the parser gave up when it is not JSON, or the reason when
// it is well-formed but not representable (a number past the range of a double).
absl::StatusOr<nlohmann::json> ParseJsonOrError(std::string_view text, const std::string& what);

// The same for ordered_json (keys kept in the document's order).
nlohmann::ordered_json ParseOrderedJson(std::string_view text);

// json::dump(indent): compact where indent < 0, else indent spaces per level.
std::string DumpJson(const nlohmann::json& j, int indent = -1);
std::string DumpJson(const nlohmann::ordered_json& j, int indent = -1);

}  // namespace harness

#endif  // HARNESS_JSON_DOC_H_
