// The report's --out folder and its manifest (out_folder.h).
#include "tools/report/out_folder.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/bounded_read.h"
#include "tools/gate/gate_io.h"  // gate::WriteFileAtomically: harness/atomic_file.h's writer

namespace report {
namespace {

constexpr char kIndex[] = "index.html";

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isdigit(c); });
}

// A temporary file of the writer (harness/atomic_file.h) for one of the report's names or the
// manifest: "<name>.tmp.<tool>.<pid>". Not the user's: it does not make a folder "not empty".
bool IsTempOfOurs(const std::string& name) {
  const size_t at = name.find(".tmp.");
  if (at == std::string::npos) return false;
  const std::string base = name.substr(0, at);
  if (!IsReportFileName(base) && base != kManifestName) return false;
  const std::string rest = name.substr(at + 5);
  const size_t dot = rest.rfind('.');
  return AllDigits(dot == std::string::npos ? rest : rest.substr(dot + 1));
}

// Makes `dir` when it is missing; an error when it cannot be made or is not a folder.
absl::Status MakeOrCheck(const std::string& dir, bool* made) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0755) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create --out folder '", dir, "': ", std::strerror(errno), " (its parent must exist)"));
    }
    *made = true;
    return absl::OkStatus();
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("--out='", dir, "' exists and is not a folder"));
  }
  return absl::OkStatus();
}

// The folder's entries, less "." and "..", and less the temporary files of ours.
absl::StatusOr<std::set<std::string>> Entries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read --out folder '", dir, "': ", std::strerror(errno)));
  }
  std::set<std::string> names;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && !IsTempOfOurs(name)) names.insert(name);
  }
  closedir(d);
  return names;
}

// The earlier report's files, from the folder's manifest; nullopt when it has none of ours.
absl::StatusOr<std::optional<std::set<std::string>>> Previous(const std::string& dir,
                                                              const std::set<std::string>& entries) {
  if (!entries.count(kManifestName)) return std::optional<std::set<std::string>>();
  absl::StatusOr<std::string> text =
      harness::ReadFileAtMost(absl::StrCat(dir, "/", kManifestName), 1 << 20, "report manifest");
  if (!text.ok()) return text.status();
  return ParseManifest(*text);
}

// What stands in the way of writing `files`: a folder with files and no manifest of ours, or a
// file of a report's name that the manifest does not list. With `force`, those files are
// returned (to be replaced) instead.
absl::StatusOr<std::vector<std::string>> Foreign(const std::string& dir, const std::set<std::string>& entries,
                                                 const std::optional<std::set<std::string>>& previous,
                                                 const std::map<std::string, std::string>& files,
                                                 bool force) {
  std::vector<std::string> in_the_way;
  for (const auto& [name, text] : files) {
    if (entries.count(name) && !(previous && previous->count(name))) in_the_way.push_back(name);
  }
  if (!previous && entries.count(kManifestName)) in_the_way.push_back(kManifestName);
  if (force) return in_the_way;
  if (!previous && !entries.empty()) {
    std::vector<std::string> some(entries.begin(), entries.end());
    if (some.size() > 5) some.resize(5);
    return absl::FailedPreconditionError(
        absl::StrCat("--out='", dir, "' holds ", entries.size(), " file(s) that report did not write ('",
                     absl::StrJoin(some, "', '"), "'", entries.size() > some.size() ? ", ..." : "",
                     ") and no ", kManifestName,
                     " of an earlier report: give a new or empty folder, or --force to write into this one "
                     "(its files named "
                     "as the report's are then replaced; no other file is removed)"));
  }
  if (!in_the_way.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--out='", dir, "': '", absl::StrJoin(in_the_way, "', '"), "' exist(s) and ", kManifestName,
        " does not list it, so report did not write it: move it away, or give --force to replace it"));
  }
  return in_the_way;
}

absl::Status WriteManifest(const std::string& dir, const std::set<std::string>& names) {
  return gate::WriteFileAtomically(absl::StrCat(dir, "/", kManifestName), ManifestText(names));
}

// Removes what the earlier report wrote and this one does not: regular files only.
std::vector<std::string> RemoveStale(const std::string& dir, const std::set<std::string>& previous,
                                     const std::map<std::string, std::string>& files) {
  std::vector<std::string> removed;
  for (const std::string& name : previous) {
    if (files.count(name) || !IsReportFileName(name)) continue;
    const std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && unlink(path.c_str()) == 0)
      removed.push_back(name);
  }
  return removed;
}

}  // namespace

bool IsReportFileName(const std::string& name) {
  static const char* const kFixed[] = {kIndex,
                                       "roofline.svg",
                                       "matmul_sweep.svg",
                                       "steps.svg",
                                       "mfu_breakdown.svg",
                                       "scaling_mfu.svg",
                                       "scaling_time.svg",
                                       "scaling_tokens.svg",
                                       "scaling_predicted.svg",
                                       "scaling_memory.svg"};
  for (const char* f : kFixed) {
    if (name == f) return true;
  }
  absl::string_view n = name;
  return absl::ConsumePrefix(&n, "trend_") && absl::ConsumeSuffix(&n, ".svg") && AllDigits(n) && n[0] != '0';
}

std::string ManifestText(const std::set<std::string>& names) {
  std::string text = absl::StrCat(kManifestHeading,
                                  ": the files //tools:report wrote in this folder, one a line.\n"
                                  "# A later report into this folder removes only files listed here.\n");
  for (const std::string& n : names) absl::StrAppend(&text, n, "\n");
  return text;
}

std::optional<std::set<std::string>> ParseManifest(const std::string& text) {
  if (!absl::StartsWith(text, kManifestHeading)) return std::nullopt;
  std::set<std::string> names;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (IsReportFileName(std::string(line))) names.insert(std::string(line));
  }
  return names;
}

absl::StatusOr<FolderWrite> WriteReportFolder(const std::string& dir,
                                              const std::map<std::string, std::string>& files, bool force) {
  if (dir.empty())
    return absl::InvalidArgumentError("--out is empty: give the folder to write the report to");
  for (const auto& [name, text] : files) {
    if (!IsReportFileName(name))
      return absl::InternalError(absl::StrCat("'", name, "' is no report file name"));
  }
  FolderWrite w;
  if (absl::Status s = MakeOrCheck(dir, &w.made_folder); !s.ok()) return s;
  absl::StatusOr<std::set<std::string>> entries = Entries(dir);
  if (!entries.ok()) return entries.status();
  absl::StatusOr<std::optional<std::set<std::string>>> previous = Previous(dir, *entries);
  if (!previous.ok()) return previous.status();
  absl::StatusOr<std::vector<std::string>> foreign = Foreign(dir, *entries, *previous, files, force);
  if (!foreign.ok()) return foreign.status();
  w.replaced = *foreign;

  std::set<std::string> now;
  for (const auto& [name, text] : files) now.insert(name);
  std::set<std::string> both = now;
  if (*previous) both.insert((*previous)->begin(), (*previous)->end());
  if (absl::Status s = WriteManifest(dir, both); !s.ok()) return s;
  for (const auto& [name, text] : files) {
    if (name == kIndex) continue;
    if (absl::Status s = gate::WriteFileAtomically(absl::StrCat(dir, "/", name), text); !s.ok()) return s;
  }
  if (*previous) w.removed = RemoveStale(dir, **previous, files);
  auto index = files.find(kIndex);
  if (index != files.end()) {
    if (absl::Status s = gate::WriteFileAtomically(absl::StrCat(dir, "/", kIndex), index->second); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = WriteManifest(dir, now); !s.ok()) return s;
  return w;
}

}  // namespace report
