// Launch arithmetic: every element or row covered, CUDA's limits respected.
#include "model/cuda/launch_config.h"

#include "gtest/gtest.h"

namespace model {
namespace cuda {
namespace {

TEST(LaunchConfig, ElementwiseCoversEveryElementOnce) {
  for (int64_t n :
       {int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{9437184}, int64_t{618} * 1000 * 1000}) {
    const LaunchDims d = ElementwiseLaunch(n);
    EXPECT_EQ(d.block_x, 256);
    EXPECT_GE(d.grid_x * d.block_x, n);
    EXPECT_LT((d.grid_x - 1) * d.block_x, n);  // no block entirely idle
    EXPECT_EQ(CheckLaunch(d), "") << n;
  }
}

TEST(LaunchConfig, GridStrideIsCapped) {
  EXPECT_EQ(GridStrideLaunch(10).grid_x, 1);
  EXPECT_EQ(GridStrideLaunch(int64_t{124} * 1000 * 1000).grid_x, kTargetBlocks);
  EXPECT_EQ(GridStrideLaunch(1000, 256, 2).grid_x, 2);
}

TEST(LaunchConfig, WarpPerRowGivesEachRowAWarp) {
  const LaunchDims d = WarpPerRowLaunch(12 * 1024, 256);
  EXPECT_EQ(d.grid_x * (d.block_x / 32), 12 * 1024);
  const LaunchDims odd = WarpPerRowLaunch(9, 256);
  EXPECT_EQ(odd.grid_x, 2);  // 8 rows per block
  // GPT-2 attention at B=12, T=1024: B*NH*T rows.
  EXPECT_EQ(CheckLaunch(WarpPerRowLaunch(int64_t{12} * 12 * 1024, 256)), "");
}

TEST(LaunchConfig, ColumnReduceCoversColumnsAndSplitsRows) {
  const LaunchDims d = ColumnReduceLaunch(12288, 768);
  EXPECT_EQ(d.block_x, 32);
  EXPECT_EQ(d.block_y, kColumnBlockY);
  EXPECT_EQ(d.grid_x, 24);
  EXPECT_GT(d.grid_y, 1);
  EXPECT_LE(d.blocks(), kTargetBlocks + d.grid_x);
  // Each thread still sums at least kMinRowsPerThread rows.
  EXPECT_GE(12288 / (d.grid_y * d.block_y), kMinRowsPerThread);
  // Few rows: one row range.
  EXPECT_EQ(ColumnReduceLaunch(32, 16).grid_y, 1);
  EXPECT_EQ(ColumnReduceLaunch(32, 33).grid_x, 2);
  EXPECT_EQ(CheckLaunch(ColumnReduceLaunch(int64_t{1} << 30, 3)), "");
}

TEST(LaunchConfig, OrderedColumnReduceGivesEachColumnOneBlock) {
  const LaunchDims d = OrderedColumnReduceLaunch(768);
  EXPECT_EQ(d.block_x, 32);
  EXPECT_EQ(d.block_y, kOrderedColumnBlockY);
  EXPECT_EQ(d.grid_x, 24);
  EXPECT_EQ(d.grid_y, 1);  // no row split: the sums run in one fixed order
  EXPECT_EQ(OrderedColumnReduceLaunch(33).grid_x, 2);
  EXPECT_EQ(CheckLaunch(OrderedColumnReduceLaunch(4096)), "");
}

TEST(LaunchConfig, AttentionBlocks) {
  EXPECT_EQ(AttentionBlock(1024), 256);
  EXPECT_EQ(AttentionBlock(100), 100);  // one block: the full (causal-masked) matrix
  EXPECT_EQ(AttentionBlock(1024, 64), 64);
  EXPECT_EQ(AttentionRowLimit(0, 1024, 256), 256);
  EXPECT_EQ(AttentionRowLimit(255, 1024, 256), 256);
  EXPECT_EQ(AttentionRowLimit(256, 1024, 256), 512);
  EXPECT_EQ(AttentionRowLimit(12, 13, 4), 13);  // the last, short block
  // (1 + 2 + 3 + 4) / 16 of the T x T products at T = 1024.
  EXPECT_DOUBLE_EQ(AttentionWorkFraction(1024, 256), 0.625);
  EXPECT_DOUBLE_EQ(AttentionWorkFraction(256, 256), 1.0);
  // 13 rows in blocks 4 + 4 + 4 + 1 see 4, 8, 12, 13 keys.
  EXPECT_DOUBLE_EQ(AttentionWorkFraction(13, 4), (4.0 * 4 + 4 * 8 + 4 * 12 + 1 * 13) / 169);
  for (int64_t t = 0; t < 13; ++t) {
    EXPECT_GT(AttentionRowLimit(t, 13, 4), t);  // every row sees itself
  }
}

TEST(LaunchConfig, CheckLaunchNamesTheBadValue) {
  LaunchDims d;
  d.grid_x = 0;
  EXPECT_NE(CheckLaunch(d).find("grid.x = 0"), std::string::npos);
  d.grid_x = 1;
  d.grid_y = 70000;
  EXPECT_NE(CheckLaunch(d).find("grid.y = 70000"), std::string::npos);
  d.grid_y = 1;
  d.block_x = 64;
  d.block_y = 32;
  EXPECT_NE(CheckLaunch(d).find("1024"), std::string::npos);
}

}  // namespace
}  // namespace cuda
}  // namespace model
