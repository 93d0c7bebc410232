// The sweep's axes, points and run order (sweep_grid.h).
#include "tools/sweep/sweep_grid.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sweep {

std::string SweepPoint::Name(const std::string& device) const {
  return absl::StrCat("BM_Sweep/", preset, "/", device, "/", dtype, "/B:", batch, "/T:", seq, "/recompute:", recompute);
}

std::string SweepPoint::Short() const {
  return absl::StrCat(preset, " ", dtype, " B=", batch, " T=", seq, recompute == "none" ? "" : " recompute=",
                      recompute == "none" ? "" : recompute);
}

absl::StatusOr<std::vector<int>> ParseIntList(const std::string& flag, const std::string& text, int max_value) {
  std::vector<int> out;
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat("--", flag, "= is empty: give e.g. 1,2,4"));
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int v = 0;
    // Digits only: no sign, no octal or hex reading ("010" is ten, as it reads).
    const bool digits = !part.empty() && part.size() <= 9 &&
                        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || !absl::SimpleAtoi(part, &v) || v < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, "=", text, ": '", part, "' is not a positive integer"));
    }
    if (v > max_value) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": ", v, " is above ", max_value));
    }
    if (std::find(out.begin(), out.end(), v) != out.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": ", v, " is given twice"));
    }
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ParseNameList(const std::string& flag, const std::string& text,
                                                       const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat("--", flag, "= is empty"));
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    const std::string name(part);
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": an empty name"));
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": '", name,
                                                     "' is not one of ", absl::StrJoin(allowed, ", ")));
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": '", name, "' is given twice"));
    }
    out.push_back(name);
  }
  return out;
}

std::vector<SweepPoint> GridPoints(const SweepAxes& axes) {
  std::vector<SweepPoint> out;
  for (const std::string& preset : axes.presets) {
    for (const std::string& dtype : axes.dtypes) {
      for (const std::string& recompute : axes.recomputes) {
        for (int seq : axes.seqs) {
          for (int batch : axes.batches) {
            SweepPoint p;
            p.preset = preset;
            p.dtype = dtype;
            p.recompute = recompute;
            p.batch = batch;
            p.seq = seq;
            out.push_back(p);
          }
        }
      }
    }
  }
  return out;
}

std::vector<SweepRun> RunOrder(int points, int repetitions) {
  std::vector<SweepRun> out;
  for (int r = 0; r < repetitions; ++r) {
    for (int p = 0; p < points; ++p) out.push_back(SweepRun{p, r});
  }
  return out;
}

}  // namespace sweep
