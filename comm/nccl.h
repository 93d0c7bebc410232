// NCCL for ddp_step, behind host-only types (only nccl_cuda.cu includes nccl.h and CUDA).
// Built without CUDA, Available() is false and every call returns an error saying so.
// Errors are strings (empty = success) naming the call, file, line and NCCL/CUDA's message.
#ifndef COMM_NCCL_H_
#define COMM_NCCL_H_

#include <cstdint>
#include <string>

namespace comm {
namespace nccl {

constexpr int kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES

bool Available();
// CUDA devices visible to this process; error when the driver or device is missing.
std::string DeviceCount(int* n);
// Rank 0 makes the id; the caller broadcasts its bytes over MPI.
std::string GetUniqueId(std::string* id_bytes);
// cudaSetDevice(device) and ncclCommInitRank; *comm is opaque.
std::string CommInit(const std::string& id_bytes, int rank, int world, int device, void** comm);
// In place on device memory, on the legacy default stream: data = scale * sum over ranks.
// data: (n) floats on this rank's device.
std::string AllReduceSumScale(void* comm, float* data, int64_t n, float scale);
std::string Synchronize();
// Device memory for benchmarks: (n) floats, filled with `value`.
std::string DeviceAlloc(int64_t n, float value, float** out);
std::string DeviceFree(float* p);
// ncclCommGetAsyncError: a peer's failure shows up here.
std::string AsyncError(void* comm);
void CommDestroy(void* comm);

}  // namespace nccl
}  // namespace comm

#endif  // COMM_NCCL_H_
