// NCCL all-reduce for ddp_step and //micro:allreduce: communicator set-up from an id that MPI
// broadcast, sum all-reduce in place, and a scale kernel (1 / (world x grad_accum)).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <string>

#include "comm/nccl.h"

#define DDP_CUDA_RETURN_IF_ERROR(call)                                              \
  do {                                                                              \
    cudaError_t ddp_err_ = (call);                                                  \
    if (ddp_err_ != cudaSuccess) {                                                  \
      return std::string("CUDA error: ") + #call + " failed at " + __FILE__ + ":" + \
             std::to_string(__LINE__) + ": " + cudaGetErrorString(ddp_err_);        \
    }                                                                               \
  } while (0)

#define DDP_NCCL_RETURN_IF_ERROR(call)                                              \
  do {                                                                              \
    ncclResult_t ddp_res_ = (call);                                                 \
    if (ddp_res_ != ncclSuccess) {                                                  \
      return std::string("NCCL error: ") + #call + " failed at " + __FILE__ + ":" + \
             std::to_string(__LINE__) + ": " + ncclGetErrorString(ddp_res_) +       \
             " (set NCCL_DEBUG=INFO for details)";                                  \
    }                                                                               \
  } while (0)

namespace comm {
namespace nccl {
namespace {

// data: (n)
__global__ void ScaleKernel(float* data, int64_t n, float scale) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    data[i] *= scale;
  }
}

// data: (n)
__global__ void FillKernel(float* data, int64_t n, float value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    data[i] = value;
  }
}

int Blocks(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

}  // namespace

bool Available() { return true; }

std::string DeviceCount(int* n) {
  *n = 0;
  DDP_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(n));
  return "";
}

std::string GetUniqueId(std::string* id_bytes) {
  ncclUniqueId id;
  DDP_NCCL_RETURN_IF_ERROR(ncclGetUniqueId(&id));
  static_assert(sizeof(id.internal) == kUniqueIdBytes, "NCCL_UNIQUE_ID_BYTES changed");
  id_bytes->assign(id.internal, sizeof(id.internal));
  return "";
}

std::string CommInit(const std::string& id_bytes, int rank, int world, int device, void** comm) {
  if (id_bytes.size() != static_cast<size_t>(kUniqueIdBytes)) {
    return "NCCL: unique id has " + std::to_string(id_bytes.size()) + " bytes, expected " +
           std::to_string(kUniqueIdBytes);
  }
  DDP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  ncclUniqueId id;
  std::memcpy(id.internal, id_bytes.data(), kUniqueIdBytes);
  ncclComm_t c = nullptr;
  DDP_NCCL_RETURN_IF_ERROR(ncclCommInitRank(&c, world, id, rank));
  *comm = c;
  return "";
}

std::string AllReduceSumScale(void* comm, float* data, int64_t n, float scale) {
  ncclComm_t c = static_cast<ncclComm_t>(comm);
  DDP_NCCL_RETURN_IF_ERROR(
      ncclAllReduce(data, data, static_cast<size_t>(n), ncclFloat, ncclSum, c, cudaStreamLegacy));
  if (scale != 1.0f) {
    ScaleKernel<<<Blocks(n, 256), 256, 0, cudaStreamLegacy>>>(data, n, scale);
    DDP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  }
  return "";
}

std::string Synchronize() {
  DDP_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return "";
}

std::string DeviceAlloc(int64_t n, float value, float** out) {
  DDP_CUDA_RETURN_IF_ERROR(cudaMalloc(out, static_cast<size_t>(n) * sizeof(float)));
  FillKernel<<<Blocks(n, 256), 256>>>(*out, n, value);
  DDP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  DDP_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return "";
}

std::string DeviceFree(float* p) {
  DDP_CUDA_RETURN_IF_ERROR(cudaFree(p));
  return "";
}

std::string AsyncError(void* comm) {
  ncclResult_t async = ncclSuccess;
  DDP_NCCL_RETURN_IF_ERROR(ncclCommGetAsyncError(static_cast<ncclComm_t>(comm), &async));
  DDP_NCCL_RETURN_IF_ERROR(async);
  return "";
}

void CommDestroy(void* comm) {
  if (comm != nullptr) ncclCommDestroy(static_cast<ncclComm_t>(comm));
}

}  // namespace nccl
}  // namespace comm
