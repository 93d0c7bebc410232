// Per-rank MFU and its wrong variants; summaries over ranks.
#include "macro/ddp_accounting.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "accounting/mfu.h"

namespace macro {
namespace {

absl::Status WorldOk(int world) {
  if (world >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("world=", world, " is invalid: must be >= 1"));
}

}  // namespace

absl::StatusOr<double> LocalStepFlops(double flops_per_token, int64_t batch, int64_t seq,
                                      int64_t grad_accum) {
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " is invalid: must be >= 1"));
  if (seq < 1) return absl::InvalidArgumentError(absl::StrCat("seq=", seq, " is invalid: must be >= 1"));
  if (grad_accum < 1) {
    return absl::InvalidArgumentError(absl::StrCat("grad_accum=", grad_accum, " is invalid: must be >= 1"));
  }
  if (!std::isfinite(flops_per_token) || flops_per_token <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("flops_per_token=", flops_per_token, " is invalid: must be finite and > 0"));
  }
  return flops_per_token * static_cast<double>(batch) * static_cast<double>(seq) *
         static_cast<double>(grad_accum);
}

absl::StatusOr<double> PerRankMfu(double local_flops_per_step, double step_seconds, double peak_per_device) {
  return accounting::Mfu(local_flops_per_step, step_seconds, peak_per_device);
}

absl::StatusOr<double> InflatedMfu(double local_flops_per_step, int world, double step_seconds,
                                   double peak_per_device) {
  if (auto s = WorldOk(world); !s.ok()) return s;
  return accounting::Mfu(local_flops_per_step * world, step_seconds, peak_per_device);
}

absl::StatusOr<double> DeflatedMfu(double local_flops_per_step, int world, double step_seconds,
                                   double peak_per_device) {
  if (auto s = WorldOk(world); !s.ok()) return s;
  return accounting::Mfu(local_flops_per_step, step_seconds, peak_per_device * world);
}

absl::StatusOr<double> ScalingRatio(double mfu_n_ranks, double mfu_one_rank) {
  if (!(mfu_n_ranks > 0) || !std::isfinite(mfu_n_ranks)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MFU at N ranks=", mfu_n_ranks, " is invalid: must be > 0"));
  }
  if (!(mfu_one_rank > 0) || !std::isfinite(mfu_one_rank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MFU at 1 rank=", mfu_one_rank, " is invalid: must be > 0"));
  }
  return mfu_n_ranks / mfu_one_rank;
}

absl::StatusOr<RankSummary> SummariseRanks(const std::vector<double>& per_rank) {
  if (per_rank.empty()) return absl::InvalidArgumentError("no ranks to summarise (empty list)");
  RankSummary s;
  s.n = static_cast<int>(per_rank.size());
  s.argmin = static_cast<int>(std::min_element(per_rank.begin(), per_rank.end()) - per_rank.begin());
  s.argmax = static_cast<int>(std::max_element(per_rank.begin(), per_rank.end()) - per_rank.begin());
  s.min = per_rank[s.argmin];
  s.max = per_rank[s.argmax];
  s.mean = std::accumulate(per_rank.begin(), per_rank.end(), 0.0) / s.n;
  std::vector<double> v = per_rank;
  std::sort(v.begin(), v.end());
  s.median = s.n % 2 ? v[s.n / 2] : 0.5 * (v[s.n / 2 - 1] + v[s.n / 2]);
  return s;
}

}  // namespace macro
