// MPI and NCCL gradient all-reducers.
#include "comm/grad_allreduce.h"

#include "absl/strings/str_cat.h"
#include "comm/nccl.h"

namespace comm {
namespace {

class MpiAllReducer : public GradAllReducer {
 public:
  explicit MpiAllReducer(MpiWorld* world) : world_(world) {}
  std::string name() const override { return "MPI_Allreduce (host memory)"; }
  absl::Status AllReduce(float* grads, int64_t n, float scale) override {
    if (auto s = world_->AllreduceSumFloats(grads, n); !s.ok()) return s;
    if (scale != 1.0f) {
      for (int64_t i = 0; i < n; ++i) grads[i] *= scale;
    }
    return absl::OkStatus();
  }

 private:
  MpiWorld* world_;
};

class NcclAllReducer : public GradAllReducer {
 public:
  NcclAllReducer(MpiWorld* world, void* comm, int device) : world_(world), comm_(comm), device_(device) {}
  ~NcclAllReducer() override { nccl::CommDestroy(comm_); }
  std::string name() const override { return absl::StrCat("NCCL (device ", device_, ")"); }
  absl::Status AllReduce(float* grads, int64_t n, float scale) override {
    std::string err = nccl::AllReduceSumScale(comm_, grads, n, scale);
    if (err.empty()) err = nccl::AsyncError(comm_);
    if (!err.empty()) return absl::InternalError(absl::StrCat("rank ", world_->rank(), ": ", err));
    return absl::OkStatus();
  }

 private:
  MpiWorld* world_;
  void* comm_;
  int device_;
};

}  // namespace

std::unique_ptr<GradAllReducer> MakeMpiAllReducer(MpiWorld* world) {
  return std::make_unique<MpiAllReducer>(world);
}

absl::StatusOr<std::unique_ptr<GradAllReducer>> MakeNcclAllReducer(MpiWorld* world) {
  // Every rank reports its GPU check, so no rank waits in the id broadcast for one that failed.
  std::string problem;
  int devices = 0;
  if (!nccl::Available()) {
    problem = "this binary was built without the CUDA toolkit (no NCCL)";
  } else if (std::string err = nccl::DeviceCount(&devices); !err.empty()) {
    problem = absl::StrCat("cannot get a GPU: no CUDA device (", err, ")");
  } else if (devices < 1) {
    problem = "cannot get a GPU: no CUDA device";
  } else if (world->local_rank() >= devices) {
    problem = absl::StrCat("cannot get a GPU: local rank ", world->local_rank(), " of ", world->local_size(),
                           " ranks on this node, but only ", devices, " GPU(s): run at most ", devices,
                           " ranks per node");
  }
  auto all = world->AllgatherStrings(problem);
  if (!all.ok()) return all.status();
  std::string failures;
  for (int r = 0; r < world->size(); ++r) {
    if (!(*all)[r].empty())
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", "rank ", r, ": ", (*all)[r]);
  }
  if (!failures.empty()) return absl::UnavailableError(absl::StrCat("NCCL all-reduce: ", failures));

  std::string id(nccl::kUniqueIdBytes, '\0');
  if (world->rank() == 0) {
    if (std::string err = nccl::GetUniqueId(&id); !err.empty()) {
      // Other ranks are already in the broadcast: end the job rather than leave them waiting.
      return absl::InternalError(err);
    }
  }
  if (auto s = world->BroadcastBytes(id.data(), nccl::kUniqueIdBytes); !s.ok()) return s;
  void* comm = nullptr;
  world->watchdog().Arm("ncclCommInitRank", world->timeout_s());
  std::string err = nccl::CommInit(id, world->rank(), world->size(), world->local_rank(), &comm);
  world->watchdog().Disarm();
  if (!err.empty()) return absl::InternalError(absl::StrCat("rank ", world->rank(), ": ", err));
  return std::unique_ptr<GradAllReducer>(new NcclAllReducer(world, comm, world->local_rank()));
}

}  // namespace comm
