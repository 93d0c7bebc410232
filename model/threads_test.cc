// SetNumThreads sets OpenMP and OpenBLAS together.
#include "model/threads.h"

#include "gtest/gtest.h"

namespace model {
namespace {

TEST(Threads, SetsOpenMpAndOpenBlas) {
  SetNumThreads(1);
  EXPECT_EQ(NumThreads(), 1);
  EXPECT_EQ(BlasNumThreads(), 1);
  SetNumThreads(2);
  EXPECT_EQ(NumThreads(), 2);
  // OpenBLAS caps its count at the cores it found, so on a 1-core machine it stays 1.
  EXPECT_GE(BlasNumThreads(), 1);
  EXPECT_LE(BlasNumThreads(), 2);
  SetNumThreads(0);  // clamped to 1
  EXPECT_EQ(NumThreads(), 1);
}

}  // namespace
}  // namespace model
