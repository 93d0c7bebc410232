// NCCL all-reduce for ddp_step and //micro:allreduce: communicator set-up from an id that MPI
// broadcast, sum all-reduce in place, and a scale kernel (1 / (world x grad_accum)).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <string>

#include "comm/nccl.h"

namespace comm {
namespace nccl {
namespace {

// "" when a CUDA or NCCL call succeeded, else "CUDA error: CALL failed at FILE:LINE: why".
std::string CallError(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return "";
  return std::string("CUDA error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
         cudaGetErrorString(e);
}
std::string CallError(ncclResult_t r, const char* call, const char* file, int line) {
  if (r == ncclSuccess) return "";
  return std::string("NCCL error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
         ncclGetErrorString(r) + " (set NCCL_DEBUG=INFO for details)";
}

#define DDP_RETURN_IF_ERROR(call)                                          \
  do {                                                                     \
    std::string ddp_error_ = CallError((call), #call, __FILE__, __LINE__); \
    if (!ddp_error_.empty()) return ddp_error_;                            \
  } while (0)

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
  DDP_RETURN_IF_ERROR(cudaGetDeviceCount(n));
  return "";
}

std::string GetUniqueId(std::string* id_bytes) {
  ncclUniqueId id;
  DDP_RETURN_IF_ERROR(ncclGetUniqueId(&id));
  static_assert(sizeof(id.internal) == kUniqueIdBytes, "NCCL_UNIQUE_ID_BYTES changed");
  id_bytes->assign(id.internal, sizeof(id.internal));
  return "";
}

std::string CommInit(const std::string& id_bytes, int rank, int world, int device, void** comm) {
  if (id_bytes.size() != static_cast<size_t>(kUniqueIdBytes)) {
    return "NCCL: unique id has " + std::to_string(id_bytes.size()) + " bytes, expected " +
           std::to_string(kUniqueIdBytes);
  }
  DDP_RETURN_IF_ERROR(cudaSetDevice(device));
  ncclUniqueId id;
  std::memcpy(id.internal, id_bytes.data(), kUniqueIdBytes);
  ncclComm_t c = nullptr;
  DDP_RETURN_IF_ERROR(ncclCommInitRank(&c, world, id, rank));
  *comm = c;
  return "";
}

std::string AllReduceSumScale(void* comm, float* data, int64_t n, float scale) {
  ncclComm_t c = static_cast<ncclComm_t>(comm);
  DDP_RETURN_IF_ERROR(
      ncclAllReduce(data, data, static_cast<size_t>(n), ncclFloat, ncclSum, c, cudaStreamLegacy));
  if (scale != 1.0f) {
    ScaleKernel<<<Blocks(n, 256), 256, 0, cudaStreamLegacy>>>(data, n, scale);
    DDP_RETURN_IF_ERROR(cudaGetLastError());
  }
  return "";
}

std::string Synchronize() {
  DDP_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return "";
}

std::string DeviceAlloc(int64_t n, float value, float** out) {
  DDP_RETURN_IF_ERROR(cudaMalloc(out, static_cast<size_t>(n) * sizeof(float)));
  FillKernel<<<Blocks(n, 256), 256>>>(*out, n, value);
  DDP_RETURN_IF_ERROR(cudaGetLastError());
  DDP_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return "";
}

std::string DeviceFree(float* p) {
  DDP_RETURN_IF_ERROR(cudaFree(p));
  return "";
}

std::string AsyncError(void* comm) {
  ncclResult_t async = ncclSuccess;
  DDP_RETURN_IF_ERROR(ncclCommGetAsyncError(static_cast<ncclComm_t>(comm), &async));
  DDP_RETURN_IF_ERROR(async);
  return "";
}

void CommDestroy(void* comm) {
  if (comm != nullptr) ncclCommDestroy(static_cast<ncclComm_t>(comm));
}

}  // namespace nccl
}  // namespace comm
