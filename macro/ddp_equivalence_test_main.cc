// Run under `mpirun -np 2` (macro/ddp_step_test.sh): a data-parallel step over the ranks equals a
// single-rank step over the combined batch, and leaves identical parameters on every rank.
//
// Rank r of W takes rows [r*B, (r+1)*B) of one fixed (W*B, T) batch; with gradient accumulation
// of A micro-steps, micro-step k takes rows [r*B + k*B/A, r*B + (k+1)*B/A). The reference is a
// model planned for all W*B rows, stepped once on the whole batch, on every rank.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "comm/grad_allreduce.h"
#include "comm/mpi_world.h"
#include "comm/overlapped_allreduce.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "macro/ddp_trainer.h"
#include "macro/step_clock.h"
#include "model/cpu_model.h"
#include "model/data/batch_source.h"
#include "model/gpt_config.h"
#include "model/threads.h"

namespace macro {
namespace {

comm::MpiWorld* g_world = nullptr;
constexpr uint64_t kSeed = 1337;

// rows [row0, row0 + rows) of `all` (B*T layout, row-major).
model::Batch Rows(const model::Batch& all, int row0, int rows) {
  model::Batch b;
  b.B = rows;
  b.T = all.T;
  b.inputs.assign(all.inputs.begin() + static_cast<size_t>(row0) * all.T,
                  all.inputs.begin() + static_cast<size_t>(row0 + rows) * all.T);
  b.targets.assign(all.targets.begin() + static_cast<size_t>(row0) * all.T,
                   all.targets.begin() + static_cast<size_t>(row0 + rows) * all.T);
  return b;
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

double MaxAbs(const std::vector<float>& a) {
  double m = 0;
  for (float x : a) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

// One DDP step with `accum` micro-steps of B/accum rows each vs the single-rank reference;
// bucket_bytes > 0: the all-reduce overlapped with backward in buckets of that size.
void CheckDdpMatchesSingleRank(int B, int accum, int64_t bucket_bytes = 0) {
  const int W = g_world->size(), r = g_world->rank();
  auto config = model::GptPreset("test-tiny");
  ASSERT_TRUE(config.ok());
  const int T = 16;
  auto source = model::MakeFixedRandomBatchSource(W * B, T, config->vocab, kSeed + 7);
  ASSERT_TRUE(source.ok());
  model::Batch all;
  ASSERT_TRUE((*source)->Next(&all).ok());

  // The DDP model: params from the same seed on every rank (then rank 0's, broadcast).
  // A different seed on rank 1 shows the broadcast matters.
  auto ddp_model = model::MakeCpuModel(*config, B / accum, T, kSeed + static_cast<uint64_t>(r));
  ASSERT_TRUE(ddp_model.ok()) << ddp_model.status();
  auto reducer = comm::MakeMpiAllReducer(g_world);
  auto clock = MakeHostStepClock();
  model::AdamWConfig opt;
  std::unique_ptr<comm::OverlappedAllReducer> overlap;
  if (bucket_bytes > 0) {
    auto made = comm::OverlappedAllReducer::Make(g_world, bucket_bytes);
    ASSERT_TRUE(made.ok()) << made.status();
    overlap = std::move(*made);
  }
  DdpTrainer trainer(g_world, ddp_model->get(), reducer.get(), clock.get(), accum, opt, overlap.get());
  ASSERT_TRUE(trainer.BroadcastParams().ok());
  int k = 0;
  auto step = trainer.Step([&](model::Batch* b) {
    *b = Rows(all, r * B + k * (B / accum), B / accum);
    ++k;
    return absl::OkStatus();
  });
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(k, accum);
  if (overlap != nullptr) {
    EXPECT_GT(step->buckets, 1) << "a small bucket size must give several buckets";
    EXPECT_GT(step->comm_total, 0.0);
  }
  std::vector<float> ddp_params, ddp_grads;
  ASSERT_TRUE((*ddp_model)->CopyParamsToHost(&ddp_params).ok());
  ASSERT_TRUE((*ddp_model)->CopyGradsToHost(&ddp_grads).ok());

  // The reference: rank 0's initial parameters (seed kSeed), all W*B rows in one step.
  auto ref = model::MakeCpuModel(*config, W * B, T, kSeed);
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE((*ref)->Forward(all).ok());
  const float ref_loss = (*ref)->loss();
  (*ref)->ZeroGrad();
  ASSERT_TRUE((*ref)->Backward().ok());
  ASSERT_TRUE((*ref)->Update(opt, 1).ok());
  std::vector<float> ref_params, ref_grads;
  ASSERT_TRUE((*ref)->CopyParamsToHost(&ref_params).ok());
  ASSERT_TRUE((*ref)->CopyGradsToHost(&ref_grads).ok());
  ASSERT_EQ(ddp_params.size(), ref_params.size());

  // Averaged gradients = the combined batch's gradients (fp32: relative 1e-5 of the largest).
  const double grad_diff = MaxAbsDiff(ddp_grads, ref_grads);
  EXPECT_LE(grad_diff, 1e-5 * MaxAbs(ref_grads) + 1e-8)
      << "rank " << r << ": max |g_ddp - g_single| = " << grad_diff << ", max |g| = " << MaxAbs(ref_grads);
  // Parameters after AdamW's first step, p - lr * g / (|g| + eps) - lr * wd * p: the update's
  // slope in g, eps / (|g| + eps)^2, turns the gradients' rounding difference (grad_diff, which
  // depends on the GEMM kernels each batch size runs) into up to lr * eps * grad_diff / (|g| -
  // grad_diff + eps)^2, large only where |g| is near eps. Each parameter is held to that plus
  // 2e-6 of fp32 rounding, at most the whole update's 2 * lr.
  double param_diff = 0, worst_excess = 0;
  int64_t worst = -1;
  for (size_t i = 0; i < ref_params.size(); ++i) {
    const double d = std::fabs(static_cast<double>(ddp_params[i]) - ref_params[i]);
    const double g = std::max(0.0, std::fabs(static_cast<double>(ref_grads[i])) - grad_diff) + opt.eps;
    const double tol = std::min(2.0 * opt.lr, opt.lr * opt.eps * grad_diff / (g * g)) + 2e-6;
    param_diff = std::max(param_diff, d);
    if (d - tol > worst_excess) worst_excess = d - tol, worst = static_cast<int64_t>(i);
  }
  EXPECT_EQ(worst, -1) << "rank " << r << ": parameter " << worst << " differs by "
                       << std::fabs(ddp_params[worst] - ref_params[worst]) << " (gradient " << ref_grads[worst]
                       << "), beyond AdamW's sensitivity to the gradients' rounding";
  EXPECT_LE(param_diff, 2.0 * opt.lr + 2e-6) << "rank " << r << ": max |p_ddp - p_single| = " << param_diff;
  // The step did move the parameters (so the comparison is not of two untouched copies).
  auto init = model::MakeCpuModel(*config, 1, T, kSeed);
  std::vector<float> init_params;
  ASSERT_TRUE((*init)->CopyParamsToHost(&init_params).ok());
  EXPECT_GT(MaxAbsDiff(ddp_params, init_params), 1e-4);

  // Mean of the ranks' losses = the combined batch's loss.
  std::vector<double> losses = *g_world->AllgatherDoubles({static_cast<double>(step->loss)});
  double mean_loss = 0;
  for (double l : losses) mean_loss += l / W;
  EXPECT_NEAR(mean_loss, ref_loss, 1e-5 * std::fabs(ref_loss));

  // Identical parameters on every rank: rank 0's copy, bit for bit.
  std::vector<float> rank0 = ddp_params;
  ASSERT_TRUE(g_world->BroadcastFloats(rank0.data(), static_cast<int64_t>(rank0.size())).ok());
  EXPECT_EQ(MaxAbsDiff(ddp_params, rank0), 0.0) << "rank " << r << " differs from rank 0";
  auto hash = ParamsHash(ddp_model->get());
  ASSERT_TRUE(hash.ok());
  auto hashes = g_world->AllgatherDoubles({static_cast<double>(*hash % (1ull << 52))});
  for (double h : *hashes) EXPECT_EQ(h, (*hashes)[0]);
  if (r == 0) {
    std::printf(
        "ddp vs single rank (W=%d on %d host(s), B=%d per rank, accum=%d, %s): max |dgrad| %.3g (max |g| "
        "%.3g), max |dparam| %.3g, loss %.6f vs %.6f\n",
        W, g_world->num_hosts(), B, accum,
        overlap != nullptr ? absl::StrCat("overlapped, ", step->buckets, " buckets").c_str() : "no overlap", grad_diff,
        MaxAbs(ref_grads), param_diff, mean_loss, ref_loss);
  }
}

TEST(DdpStep, TwoRanksEqualOneRankOverTheCombinedBatch) {
  ASSERT_GE(g_world->size(), 2) << "run under mpirun -np 2";
  CheckDdpMatchesSingleRank(/*B=*/2, /*accum=*/1);
}

TEST(DdpStep, GradientAccumulationEqualsOneRankOverTheCombinedBatch) {
  ASSERT_GE(g_world->size(), 2) << "run under mpirun -np 2";
  CheckDdpMatchesSingleRank(/*B=*/4, /*accum=*/2);
}

TEST(DdpStep, OverlappedBucketsEqualOneRankOverTheCombinedBatch) {
  ASSERT_GE(g_world->size(), 2) << "run under mpirun -np 2";
  CheckDdpMatchesSingleRank(/*B=*/2, /*accum=*/1, /*bucket_bytes=*/4096);
  CheckDdpMatchesSingleRank(/*B=*/4, /*accum=*/2, /*bucket_bytes=*/4096);
}

TEST(DdpStep, ConfigMismatchIsAnErrorOnEveryRank) {
  std::string mine = g_world->rank() == 1 ? "batch=3" : "batch=2";
  absl::Status s = CheckSameOnAllRanks(g_world, "configuration", mine);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rank 1: batch=3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("rank 0: batch=2"), std::string::npos) << s.message();
  EXPECT_TRUE(CheckSameOnAllRanks(g_world, "configuration", "same").ok());
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto world = comm::MpiWorld::Init(&argc, &argv, /*timeout_s=*/60);
  if (!world.ok()) {
    std::fprintf(stderr, "ddp_equivalence_test: %s\n", std::string(world.status().message()).c_str());
    return 2;
  }
  macro::g_world = *world;
  model::SetNumThreads(1);  // two ranks share two cores
  int rc = RUN_ALL_TESTS();
  comm::MpiWorld::Finalize();
  return rc;
}
