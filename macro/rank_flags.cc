// The flag-table comparison across ranks; see rank_flags.h.
#include "macro/rank_flags.h"

#include <algorithm>
#include <map>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace macro {
namespace {

// "--name" of a line: up to the '=' or the space.
std::string FlagOf(const std::string& line) { return line.substr(0, line.find_first_of("= ")); }

}  // namespace

absl::StatusOr<std::string> RankAgreementLines(const std::vector<RankOwnFlag>& own) {
  const auto flags = absl::GetAllFlags();
  std::map<std::string, const RankOwnFlag*> own_by_name;
  for (const RankOwnFlag& f : own) {
    if (flags.find(f.name) == flags.end()) {
      return absl::InternalError(
          absl::StrCat("the rank's own flag --", f.name, " is not a flag of this binary"));
    }
    own_by_name[f.name] = &f;
  }
  std::vector<std::string> lines;
  for (const auto& [name, flag] : flags) {
    if (absl::StrContains(flag->Filename(), "absl/flags/")) continue;  // Abseil's own
    const auto it = own_by_name.find(std::string(name));
    if (it == own_by_name.end()) {
      lines.push_back(absl::StrCat("--", name, "=", flag->CurrentValue()));
    } else if (it->second->given_on_all_or_none) {
      const bool given = flag->CurrentValue() != flag->DefaultValue();
      lines.push_back(absl::StrCat("--", name, given ? " given" : " not given"));
    }
  }
  std::sort(lines.begin(), lines.end());
  return absl::StrJoin(lines, "\n");
}

std::vector<std::string> FlagDifferences(const std::string& rank0, const std::string& mine) {
  std::map<std::string, std::string> theirs;
  for (absl::string_view l : absl::StrSplit(rank0, '\n', absl::SkipEmpty())) {
    theirs[FlagOf(std::string(l))] = std::string(l);
  }
  std::vector<std::string> out;
  for (absl::string_view v : absl::StrSplit(mine, '\n', absl::SkipEmpty())) {
    const std::string l(v);
    const auto it = theirs.find(FlagOf(l));
    const std::string other = it == theirs.end() ? "no such flag" : it->second;
    if (other != l) out.push_back(absl::StrCat(l, " (rank 0: ", other, ")"));
  }
  return out;
}

}  // namespace macro
