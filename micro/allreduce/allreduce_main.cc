// //micro:allreduce — all-reduce bandwidth across message sizes: MPI_Allreduce on host memory
// (CPU) or NCCL on device memory (one GPU per rank). Run under mpirun:
//   mpirun -np N bazel-out/k8-opt/bin/micro/allreduce/allreduce [--device=cpu|cuda] [--max_bytes=...]
// Per size: the slowest rank's mean time per all-reduce (after warm-up), algbw = bytes / time and
// busbw = algbw x 2(n-1)/n (nccl-tests). fp32 sum. The MPI result is checked (every element =
// n(n+1)/2 when rank r contributes r+1); the NCCL one is not yet (said in the output).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "comm/mpi_world.h"
#include "comm/nccl.h"
#include "micro/allreduce/allreduce_bw.h"

ABSL_FLAG(std::string, device, "cpu", "cpu (MPI_Allreduce, host memory) or cuda (NCCL, one GPU per rank)");
ABSL_FLAG(int64_t, min_bytes, 1024, "smallest message, bytes (multiple of 4)");
ABSL_FLAG(int64_t, max_bytes, 16 << 20, "largest message, bytes; sizes double from min_bytes");
ABSL_FLAG(int, warmup, 5, "untimed all-reduces per size");
ABSL_FLAG(int, iters, 20, "timed all-reduces per size");
ABSL_FLAG(double, timeout_s, 120, "a collective that takes longer ends the rank with an error");

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "allreduce: error: %s\n", msg.c_str());
  comm::MpiWorld::Abort(1);
}

}  // namespace

int main(int argc, char** argv) {
  auto world_or = comm::MpiWorld::Init(&argc, &argv, 120);
  if (!world_or.ok()) {
    std::fprintf(stderr, "allreduce: error: %s\n", std::string(world_or.status().message()).c_str());
    return 2;
  }
  comm::MpiWorld* world = *world_or;
  absl::ParseCommandLine(argc, argv);
  world->set_timeout_s(absl::GetFlag(FLAGS_timeout_s));
  const std::string device = absl::GetFlag(FLAGS_device);
  const int64_t min_bytes = absl::GetFlag(FLAGS_min_bytes), max_bytes = absl::GetFlag(FLAGS_max_bytes);
  const int warmup = absl::GetFlag(FLAGS_warmup), iters = absl::GetFlag(FLAGS_iters);
  std::string bad;
  if (device != "cpu" && device != "cuda") bad = absl::StrCat("--device=", device, " is invalid: cpu or cuda");
  else if (min_bytes < 4 || min_bytes % 4) bad = absl::StrCat("--min_bytes=", min_bytes, " is invalid: a multiple of 4, >= 4");
  else if (max_bytes < min_bytes) bad = absl::StrCat("--max_bytes=", max_bytes, " is invalid: must be >= --min_bytes");
  else if (iters < 1 || warmup < 0) bad = absl::StrCat("--iters=", iters, " / --warmup=", warmup, " invalid: iters >= 1, warmup >= 0");
  if (!bad.empty()) {
    if (world->rank() == 0) std::fprintf(stderr, "allreduce: error: %s\n", bad.c_str());
    comm::MpiWorld::Finalize();
    return 2;
  }
  const int W = world->size(), r = world->rank();
  void* comm = nullptr;
  if (device == "cuda") {
    std::string problem;
    int n = 0;
    if (!comm::nccl::Available()) problem = "built without the CUDA toolkit (no NCCL)";
    else if (std::string e = comm::nccl::DeviceCount(&n); !e.empty()) problem = absl::StrCat("no CUDA device: ", e);
    else if (world->local_rank() >= n) problem = absl::StrCat("local rank ", world->local_rank(), " but only ", n, " GPU(s)");
    auto all = world->AllgatherStrings(problem);
    if (!all.ok()) return Fail(std::string(all.status().message()));
    for (int q = 0; q < W; ++q) {
      if (!(*all)[q].empty()) {
        if (r == 0) std::printf("allreduce: skipped: rank %d cannot use NCCL: %s\n", q, (*all)[q].c_str());
        comm::MpiWorld::Finalize();
        return 0;
      }
    }
    std::string id(comm::nccl::kUniqueIdBytes, '\0');
    if (r == 0) {
      if (std::string e = comm::nccl::GetUniqueId(&id); !e.empty()) return Fail(e);
    }
    if (auto s = world->BroadcastBytes(id.data(), id.size()); !s.ok()) return Fail(std::string(s.message()));
    if (std::string e = comm::nccl::CommInit(id, r, W, world->local_rank(), &comm); !e.empty()) return Fail(e);
  }
  if (r == 0) {
    std::printf("allreduce: %d rank(s), %s, fp32 sum, %d warm-up + %d timed per size; busbw = algbw x 2(n-1)/n (nccl-tests)\n",
                W, device == "cuda" ? "NCCL on device memory" : "MPI_Allreduce on host memory", warmup, iters);
    std::printf("%14s %12s %14s %14s %10s\n", "bytes", "time us", "algbw GB/s", "busbw GB/s", "verified");
  }
  for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int64_t n = bytes / 4;
    std::vector<float> host;
    float* dev = nullptr;
    if (device == "cuda") {
      if (std::string e = comm::nccl::DeviceAlloc(n, static_cast<float>(r + 1), &dev); !e.empty()) return Fail(e);
    } else {
      host.assign(n, static_cast<float>(r + 1));
    }
    auto once = [&]() -> std::string {
      if (device == "cuda") return comm::nccl::AllReduceSumScale(comm, dev, n, 1.0f);
      auto s = world->AllreduceSumFloats(host.data(), n);
      return s.ok() ? "" : std::string(s.message());
    };
    for (int i = 0; i < warmup; ++i) {
      if (std::string e = once(); !e.empty()) return Fail(e);
    }
    bool verified = false;
    if (device == "cpu") {
      // After warm-up w rounds of sums starting from r+1: S * W^(w-1) with S = W(W+1)/2.
      double expect = W * (W + 1) / 2.0;
      for (int i = 1; i < warmup; ++i) expect *= W;
      verified = warmup == 0 || std::all_of(host.begin(), host.end(), [&](float x) { return std::abs(x - expect) <= 1e-6 * expect; });
      std::fill(host.begin(), host.end(), 1e-3f);  // keep values small during timing
    }
    if (device == "cuda" && !comm::nccl::Synchronize().empty()) return Fail(comm::nccl::Synchronize());
    if (auto s = world->Barrier(); !s.ok()) return Fail(std::string(s.message()));
    const double t0 = Now();
    for (int i = 0; i < iters; ++i) {
      if (std::string e = once(); !e.empty()) return Fail(e);
    }
    if (device == "cuda") {
      if (std::string e = comm::nccl::Synchronize(); !e.empty()) return Fail(e);
    }
    double sec = (Now() - t0) / iters;
    auto all = world->AllgatherDoubles({sec, verified ? 1.0 : 0.0});
    if (!all.ok()) return Fail(std::string(all.status().message()));
    double slowest = 0;
    bool all_verified = true;
    for (int q = 0; q < W; ++q) {
      slowest = std::max(slowest, (*all)[2 * q]);
      all_verified = all_verified && (*all)[2 * q + 1] == 1.0;
    }
    auto bw = micro::AllreduceBandwidth(bytes, slowest, W);
    if (!bw.ok()) return Fail(std::string(bw.status().message()));
    if (r == 0) {
      std::printf("%14lld %12.2f %14.3f %14.3f %10s\n", static_cast<long long>(bytes), slowest * 1e6,
                  bw->algbw / 1e9, bw->busbw / 1e9, device == "cuda" ? "no" : (all_verified ? "yes" : "WRONG"));
    }
    if (dev != nullptr) comm::nccl::DeviceFree(dev);
    if (device == "cpu" && !all_verified) {
      comm::MpiWorld::Finalize();
      return 1;
    }
  }
  if (comm != nullptr) comm::nccl::CommDestroy(comm);
  comm::MpiWorld::Finalize();
  return 0;
}
