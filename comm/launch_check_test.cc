#include "comm/launch_check.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace comm {
namespace {

EnvReader Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(LaunchCheck, NoLauncherVariablesIsFine) { EXPECT_TRUE(CheckLaunchedWorldSize(1, 0, Env({})).ok()); }

TEST(LaunchCheck, MatchingCountsAreFine) {
  EXPECT_TRUE(CheckLaunchedWorldSize(
                  4, 3, Env({{"OMPI_COMM_WORLD_SIZE", "4"}, {"MLBENCH_EXPECTED_WORLD_SIZE", "4"}, {"PMI_SIZE", "4"}}))
                  .ok());
}

TEST(LaunchCheck, SingletonUnderAForeignLauncherIsRefused) {
  absl::Status s = CheckLaunchedWorldSize(1, 0, Env({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("PMI_SIZE=2"), std::string::npos) << s;
  EXPECT_NE(s.message().find("rank 0 of 1"), std::string::npos) << s;
  EXPECT_NE(s.message().find("PMI mismatch"), std::string::npos) << s;
}

TEST(LaunchCheck, ClusterCountDiffersFromMpi) {
  absl::Status s = CheckLaunchedWorldSize(2, 1, Env({{"MLBENCH_EXPECTED_WORLD_SIZE", "3"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("MLBENCH_EXPECTED_WORLD_SIZE=3"), std::string::npos) << s;
  EXPECT_NE(s.message().find("rank 1 of 2"), std::string::npos) << s;
}

TEST(LaunchCheck, SrunStepCountOnlyWhenSrunStartedTheProcess) {
  // srun without --mpi=pmix: singleton with srun's variables.
  absl::Status s = CheckLaunchedWorldSize(1, 0, Env({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "8"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("SLURM_STEP_NUM_TASKS=8"), std::string::npos) << s;
  // mpirun inside a batch job: the batch step's Slurm count is not this job's.
  EXPECT_TRUE(CheckLaunchedWorldSize(
                  2, 0,
                  Env({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}))
                  .ok());
}

TEST(LaunchCheck, GarbageIsNamed) {
  absl::Status s = CheckLaunchedWorldSize(2, 0, Env({{"OMPI_COMM_WORLD_SIZE", "two"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("OMPI_COMM_WORLD_SIZE=two"), std::string::npos) << s;
  EXPECT_FALSE(CheckLaunchedWorldSize(2, 0, Env({{"PMI_SIZE", "0"}})).ok());
}

// A program that is not an MPI program under a launcher of several processes: refused, naming
// the program, the variable and the count; one process, or no launcher, is fine.
TEST(LaunchCheck, ANonMpiProgramUnderAMultiProcessLaunchIsRefused) {
  EXPECT_TRUE(CheckNotMultiProcessLaunch("gpt_decode", Env({})).ok());
  EXPECT_TRUE(CheckNotMultiProcessLaunch("gpt_decode", Env({{"OMPI_COMM_WORLD_SIZE", "1"}})).ok());
  absl::Status s = CheckNotMultiProcessLaunch("gpt_decode", Env({{"OMPI_COMM_WORLD_SIZE", "2"}}));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("gpt_decode is not an MPI program, but a launcher started it as one of 2 processes "
                             "(OMPI_COMM_WORLD_SIZE=2)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("ddp_step"), std::string::npos) << s;
  s = CheckNotMultiProcessLaunch("gpt_step", Env({{"SLURM_PROCID", "3"}, {"SLURM_STEP_NUM_TASKS", "4"}}));
  EXPECT_NE(s.message().find("(SLURM_STEP_NUM_TASKS=4)"), std::string::npos) << s;
  EXPECT_EQ(CheckNotMultiProcessLaunch("gpt_step", Env({{"PMI_SIZE", "x"}})).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace comm
