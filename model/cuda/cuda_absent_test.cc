// CudaAbsentReason for each MLBENCH_CUDA_ABSENT (the BUILD compiles this test once per value): the
// reason names what is missing and how to get the CUDA model linked.
#include "model/cuda/cuda_absent.h"

#include <string>

#include "gtest/gtest.h"

namespace model {
namespace {

TEST(CudaAbsentTest, NamesTheCauseAndTheRemedy) {
  const std::string why = CudaAbsentReason();
#if MLBENCH_CUDA_ABSENT == 1
  EXPECT_NE(why.find("built without the CUDA toolkit"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA_PATH"), std::string::npos) << why;
#elif MLBENCH_CUDA_ABSENT == 2
  EXPECT_NE(why.find("no NVIDIA driver was found"), std::string::npos) << why;
  EXPECT_NE(why.find("bazel sync --configure"), std::string::npos) << why;
  EXPECT_NE(why.find("--define=cuda_model=on"), std::string::npos) << why;
#elif MLBENCH_CUDA_ABSENT == 3
  EXPECT_NE(why.find("--define=cuda_model=off"), std::string::npos) << why;
  EXPECT_NE(why.find("--define=cuda_model=on"), std::string::npos) << why;
#else
#error "MLBENCH_CUDA_ABSENT must be 1, 2 or 3"
#endif
}

}  // namespace
}  // namespace model
