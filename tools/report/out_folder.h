// The --out folder of a report, and what the report may do there. The report keeps a manifest
// in it, report_manifest.txt, naming every file it wrote; it removes only files named there
// (charts of an earlier report that this one lacks) and never any other file. It writes into a
// folder that is new, empty, or holds its manifest; a folder with other files and no manifest
// (one it did not make: `--out=.`) is refused unless `force`, and so is replacing a file of a
// report's name that the manifest does not list. With `force` such files are replaced, and still
// no file the report did not write is removed.
//
// Each file, the manifest too, goes through a temporary name then a rename (harness/atomic_file.h).
// Order: the manifest first, naming the earlier files and the new ones (a run killed midway leaves
// nothing the next run would not recognise), then the charts, the stale charts removed, index.html
// last (a reader who sees the new page sees its charts), then the manifest of this report alone.
#ifndef TOOLS_REPORT_OUT_FOLDER_H_
#define TOOLS_REPORT_OUT_FOLDER_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace report {

inline constexpr char kManifestName[] = "report_manifest.txt";
// The manifest's first line: a file named report_manifest.txt without it is not ours.
inline constexpr char kManifestHeading[] = "# mlbench report manifest";

// True for the names a report writes and its manifest may list: index.html, roofline.svg,
// matmul_sweep.svg, steps.svg, mfu_breakdown.svg, the scaling map's scaling_mfu.svg,
// scaling_time.svg, scaling_tokens.svg, scaling_predicted.svg, scaling_memory.svg, trend_<N>.svg. Any other line of a manifest is
// ignored (a manifest edited to name "../x" or "notes.txt" removes nothing).
bool IsReportFileName(const std::string& name);

// The manifest's text for these names.
std::string ManifestText(const std::set<std::string>& names);

// The names a manifest text lists, or nullopt when the text is not a manifest (no heading).
std::optional<std::set<std::string>> ParseManifest(const std::string& text);

struct FolderWrite {
  bool made_folder = false;
  std::vector<std::string> replaced;  // files of the report's names it had not written (force)
  std::vector<std::string> removed;   // files of an earlier report that this one no longer has
};

// Writes `files` (name -> content) into `dir` as the banner says; makes `dir` (one level) when it
// is missing. Errors (exit 2 for the tool) name the folder and what is in the way.
absl::StatusOr<FolderWrite> WriteReportFolder(const std::string& dir,
                                              const std::map<std::string, std::string>& files, bool force);

}  // namespace report

#endif  // TOOLS_REPORT_OUT_FOLDER_H_
