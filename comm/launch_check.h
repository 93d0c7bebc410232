// Launch sanity: the world size MPI reports against the one the launcher asked for.
//
// The classic trap: an MPI program started by a launcher that does not speak its library's
// process-management interface (MPICH's mpiexec, or Slurm's srun without --mpi=pmix, around an
// OpenMPI build) starts every process as a singleton, "rank 0 of 1", without an error; each one
// then trains alone and reports a per-rank figure as if it were the job's. The launcher still
// leaves its own count in the environment, so each process can tell.
#ifndef COMM_LAUNCH_CHECK_H_
#define COMM_LAUNCH_CHECK_H_

#include <functional>
#include <string>

#include "absl/status/status.h"

namespace comm {

// Reads an environment variable (nullptr when unset); std::getenv in production.
using EnvReader = std::function<const char*(const char*)>;

// Compares mpi_size with every launcher count present in the environment:
//   MLBENCH_EXPECTED_WORLD_SIZE  what //tools:cluster asked mpirun for
//   OMPI_COMM_WORLD_SIZE         OpenMPI's mpirun
//   PMI_SIZE                     MPICH's Hydra, srun --mpi=pmi2
//   SLURM_STEP_NUM_TASKS         srun (only when srun started this process: SLURM_PROCID set and
//                                no OMPI_COMM_WORLD_SIZE, i.e. not mpirun inside a batch job)
// FailedPrecondition naming the variable, both counts and the likely cause when one differs;
// InvalidArgument when a variable is not a positive integer.
absl::Status CheckLaunchedWorldSize(int mpi_size, int mpi_rank, const EnvReader& env);

// For a program that is not an MPI program (gpt_step, gpt_decode): started by a launcher that
// asked for more than one process (the same variables as above), each copy would run the whole
// benchmark alone on a share of the machine and overwrite the others' output files. Then
// FailedPrecondition naming `program`, the variable and the count, and what to run instead;
// InvalidArgument for a variable that is not a positive integer; else OK.
absl::Status CheckNotMultiProcessLaunch(const std::string& program, const EnvReader& env);

}  // namespace comm

#endif  // COMM_LAUNCH_CHECK_H_
