// CheckLaunchedWorldSize: the launcher's counts in the environment against MPI's world size.
#include "comm/launch_check.h"

#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace comm {

namespace {

// The launcher counts present in the environment, in the order CheckLaunchedWorldSize reads them.
std::vector<const char*> LauncherVariables(const EnvReader& env) {
  std::vector<const char*> vars = {"MLBENCH_EXPECTED_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  if (env("SLURM_PROCID") != nullptr && env("OMPI_COMM_WORLD_SIZE") == nullptr)
    vars.push_back("SLURM_STEP_NUM_TASKS");
  return vars;
}

absl::Status ReadCount(const char* var, const char* text, int64_t* count) {
  if (!absl::SimpleAtoi(text, count) || *count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(var, "=", text, " in the environment is not a positive integer (a world size)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckNotMultiProcessLaunch(const std::string& program, const EnvReader& env) {
  for (const char* var : LauncherVariables(env)) {
    const char* text = env(var);
    if (text == nullptr) continue;
    int64_t count = 0;
    if (auto st = ReadCount(var, text, &count); !st.ok()) return st;
    if (count == 1) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        program, " is not an MPI program, but a launcher started it as one of ", count, " processes (", var, "=",
        count, "): each copy would run the whole benchmark alone on a share of the machine and overwrite the "
        "others' output files. Run it once, without mpirun or srun; ddp_step is the benchmark of several ranks."));
  }
  return absl::OkStatus();
}

absl::Status CheckLaunchedWorldSize(int mpi_size, int mpi_rank, const EnvReader& env) {
  for (const char* var : LauncherVariables(env)) {
    const char* text = env(var);
    if (text == nullptr) continue;
    int64_t want = 0;
    if (auto st = ReadCount(var, text, &want); !st.ok()) return st;
    if (want == mpi_size) continue;
    std::string why =
        mpi_size == 1
            ? " Every process started alone (rank 0 of 1): the launcher and the MPI library do not speak "
              "the same process-management interface (a PMI mismatch, e.g. MPICH's mpiexec or srun without "
              "--mpi=pmix around an OpenMPI build). Start it with this MPI's own mpirun, or srun --mpi=pmix."
            : " The launcher and MPI disagree on the world: check the hostfile's slots and -np.";
    return absl::FailedPreconditionError(absl::StrCat("launch check: ", var, "=", want,
                                                      " (the launcher asked for ", want, " processes) but MPI says this is rank ",
                                                      mpi_rank, " of ", mpi_size, ".", why));
  }
  return absl::OkStatus();
}

}  // namespace comm
