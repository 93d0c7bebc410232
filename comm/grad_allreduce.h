// Gradient all-reduce for data-parallel training: MPI_Allreduce on host memory (CPU ranks) or
// NCCL on device memory (one GPU per rank, the NCCL id broadcast over MPI).
// Averaging: sum over ranks, then x scale (the caller passes 1 / (world x grad_accum)), so the
// result is the gradient of the mean loss over every rank's tokens.
#ifndef COMM_GRAD_ALLREDUCE_H_
#define COMM_GRAD_ALLREDUCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "comm/mpi_world.h"

namespace comm {

class GradAllReducer {
 public:
  virtual ~GradAllReducer() = default;
  virtual std::string name() const = 0;  // "MPI_Allreduce (host memory)", "NCCL (device 0)"
  // grads: (n) floats in the model's memory (host for MPI, device for NCCL); in place,
  // grads = scale x sum over ranks. Returns once the result is ready to use on this rank's
  // device stream (NCCL: enqueued on the legacy default stream).
  virtual absl::Status AllReduce(float* grads, int64_t n, float scale) = 0;
};

std::unique_ptr<GradAllReducer> MakeMpiAllReducer(MpiWorld* world);

// Checks the GPUs first: errors for no CUDA device, or more ranks on this node than GPUs
// (names local rank and count). device = the world's local rank.
absl::StatusOr<std::unique_ptr<GradAllReducer>> MakeNcclAllReducer(MpiWorld* world);

}  // namespace comm

#endif  // COMM_GRAD_ALLREDUCE_H_
