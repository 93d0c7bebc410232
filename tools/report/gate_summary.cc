// Parsing tools/gate's markdown summary.
#include "tools/report/gate_summary.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/bounded_read.h"
#include "tools/report/family.h"

namespace report {
namespace {

std::string StripMarkdown(absl::string_view s) {
  std::string out = absl::StrReplaceAll(s, {{"**", ""}, {"`", ""}});
  return std::string(absl::StripAsciiWhitespace(out));
}

// Cells of a markdown table row "| a | b |" (outer pipes dropped).
std::vector<std::string> Cells(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  absl::ConsumePrefix(&line, "|");
  absl::ConsumeSuffix(&line, "|");
  std::vector<std::string> cells;
  for (absl::string_view c : absl::StrSplit(line, '|')) cells.push_back(StripMarkdown(c));
  return cells;
}

// The table's columns, by their heading, and the GateRow field each fills.
constexpr std::pair<const char*, std::string GateRow::*> kColumns[] = {
    {"status", &GateRow::status},   {"case", &GateRow::case_name}, {"baseline", &GateRow::baseline},
    {"current", &GateRow::current}, {"change", &GateRow::change},  {"p", &GateRow::p},
    {"note", &GateRow::note}};

}  // namespace

absl::StatusOr<GateSummary> ParseGateSummary(const std::string& text, const std::string& path) {
  GateSummary g;
  g.file = path;
  bool heading = false;
  std::vector<std::string> header;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (absl::ConsumePrefix(&line, "## Performance gate:")) {
      heading = true;
      g.verdict = StripMarkdown(line);
      continue;
    }
    if (!heading) continue;
    if (absl::StartsWith(line, "- ") && header.empty()) {
      g.details.push_back(StripMarkdown(line.substr(2)));
      continue;
    }
    if (!absl::StartsWith(line, "|")) {
      if (!header.empty() && !line.empty()) break;  // the table ended (warnings follow)
      continue;
    }
    std::vector<std::string> cells = Cells(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (!cells.empty() && absl::StartsWith(cells[0], "---")) continue;
    GateRow row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      for (const auto& [name, field] : kColumns) {
        if (header[i] == name) row.*field = cells[i];
      }
    }
    if (!row.case_name.empty()) g.rows.push_back(row);
  }
  if (!heading) {
    return absl::InvalidArgumentError(
        absl::StrCat("--gate='", path,
                     "' is not a tools/gate summary: no \"## Performance gate:\" heading "
                     "(write one with `bazel run //tools:gate -- --current=RUN.json --summary=FILE`)"));
  }
  bool has_status = false, has_case = false;
  for (const std::string& h : header) has_status |= h == "status", has_case |= h == "case";
  if (!has_status || !has_case) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--gate='", path, "': no status table with 'status' and 'case' columns after the heading"));
  }
  return g;
}

absl::StatusOr<GateSummary> ReadGateSummary(const std::string& path) {
  // A gate summary is a few kB of Markdown: the JSON files' limit is ample.
  absl::StatusOr<std::string> text = harness::ReadFileAtMost(path, harness::kMaxJsonFileBytes, "--gate file");
  if (!text.ok()) return text.status();
  return ParseGateSummary(*text, path);
}

std::string GateStatusOf(const GateSummary& gate, const std::string& case_name) {
  const std::string stripped = StripRunSuffixes(case_name);
  for (const GateRow& r : gate.rows) {
    if (r.case_name == case_name || StripRunSuffixes(r.case_name) == stripped) return r.status;
  }
  return "";
}

}  // namespace report
