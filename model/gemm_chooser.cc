// The per-shape CPU GEMM chooser (gemm_chooser.h).
#include "model/gemm_chooser.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace model {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int FastestCandidate(const std::vector<GemmCandidateRate>& candidates) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    if (!(candidates[i].median_flops_per_s > 0)) continue;
    if (best < 0 || candidates[i].median_flops_per_s > candidates[best].median_flops_per_s) best = i;
  }
  return best;
}

absl::StatusOr<std::vector<GemmChoice>> ChooseCpuGemms(const std::vector<StepGemm>& gemms,
                                                       const std::vector<CpuGemmBackend>& candidates,
                                                       const std::map<std::string, double>& file_rates, int rounds,
                                                       std::string* source) {
  if (candidates.empty()) return absl::InvalidArgumentError("no CPU GEMM candidates to choose from");
  for (CpuGemmBackend b : candidates) {
    if (b == CpuGemmBackend::kAuto) return absl::InvalidArgumentError("auto is not a CPU GEMM candidate");
  }
  rounds = std::max(1, rounds);
  int from_file = 0, measured = 0;
  std::vector<GemmChoice> out;
  for (const StepGemm& g : gemms) {
    GemmChoice c;
    c.gemm = g;
    std::vector<int> to_measure;
    for (CpuGemmBackend b : candidates) {
      GemmCandidateRate r;
      r.backend = b;
      auto it = file_rates.find(g.Key(b));
      if (it != file_rates.end() && it->second > 0) {
        r.median_flops_per_s = r.best_flops_per_s = it->second;
        r.from_file = true;
        ++from_file;
      } else {
        to_measure.push_back(static_cast<int>(c.candidates.size()));
        ++measured;
      }
      c.candidates.push_back(r);
    }
    if (!to_measure.empty()) {
      StepGemmRunner runner(g);
      for (int i : to_measure) {
        ScopedCpuGemmBackend on(c.candidates[i].backend);
        if (auto st = runner.RunAndCheck(); !st.ok()) return st;
      }
      std::vector<std::vector<double>> rates(c.candidates.size());
      for (int round = 0; round < rounds; ++round) {
        for (int i : to_measure) {
          ScopedCpuGemmBackend on(c.candidates[i].backend);
          const double dt = runner.TimeOnce();
          if (dt > 0) rates[i].push_back(g.flops_per_call() / dt);
        }
      }
      for (int i : to_measure) {
        c.candidates[i].median_flops_per_s = Median(rates[i]);
        c.candidates[i].best_flops_per_s =
            rates[i].empty() ? 0 : *std::max_element(rates[i].begin(), rates[i].end());
      }
    }
    c.chosen = FastestCandidate(c.candidates);
    if (c.chosen < 0) {
      return absl::InternalError(absl::StrCat("no CPU GEMM candidate has a rate for ", g.name,
                                              " (a clock that did not advance?)"));
    }
    out.push_back(std::move(c));
  }
  if (source != nullptr) {
    const std::string now =
        candidates.size() > 1
            ? absl::StrCat("measured at start-up (checked, then ", rounds,
                           " interleaved calls per candidate: the highest median chooses, the rate is the "
                           "chosen one's best call)")
            : absl::StrCat("measured at start-up (checked, then the best of ", rounds, " calls per shape)");
    if (measured == 0) {
      *source = "from the ceilings file";
    } else if (from_file == 0) {
      *source = now;
    } else {
      *source = absl::StrCat(from_file, " from the ceilings file, ", measured, " ", now);
    }
  }
  return out;
}

absl::Status ApplyCpuGemmChoices(const std::vector<GemmChoice>& choices) {
  std::vector<CpuGemmChoice> table;
  for (const GemmChoice& c : choices) {
    table.push_back(CpuGemmChoice{c.gemm.trans_a, c.gemm.trans_b, c.gemm.M, c.gemm.N, c.gemm.K, c.backend()});
  }
  return SetCpuGemmChoices(table);
}

std::vector<std::string> DescribeGemmChoices(const std::vector<GemmChoice>& choices) {
  std::vector<std::string> lines;
  for (const GemmChoice& c : choices) {
    std::string line = absl::StrFormat("%-18s %s%s M:%-5d N:%-5d K:%-5d", c.gemm.name, c.gemm.trans_a ? "T" : "N",
                                       c.gemm.trans_b ? "T" : "N", c.gemm.M, c.gemm.N, c.gemm.K);
    for (size_t i = 0; i < c.candidates.size(); ++i) {
      const GemmCandidateRate& r = c.candidates[i];
      absl::StrAppend(&line, absl::StrFormat("  %s %.1f%s", CpuGemmBackendName(r.backend), r.median_flops_per_s / 1e9,
                                             static_cast<int>(i) == c.chosen && c.candidates.size() > 1 ? "*" : ""));
    }
    absl::StrAppend(&line, " GFLOP/s");
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace model
