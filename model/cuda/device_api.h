// The few CUDA runtime services the host-only model code (cuda_gpt.cc) needs, behind plain C++
// so that no .cc file includes a CUDA header: device memory, copies, memset, synchronisation
// and the free-memory query. device_api_cuda.cu implements them with the runtime API on the
// legacy default stream; device_api_emu.cc with host memory for the kernel emulator.
// Failures of the copy / memset / sync calls abort through CUDA_CHECK (they mean a broken
// device or a bug); allocation and the memory query return errors the caller can report.
#ifndef MODEL_CUDA_DEVICE_API_H_
#define MODEL_CUDA_DEVICE_API_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace model {
namespace cuda {

// "" on success; else the runtime's message. *ptr is 256-byte aligned.
std::string DeviceAlloc(void** ptr, int64_t bytes);
void DeviceFree(void* ptr);
// Free and total bytes of the current device; "" on success.
std::string DeviceMemoryInfo(int64_t* free_bytes, int64_t* total_bytes);

// The calling thread's current device (cudaGetDevice / cudaSetDevice); "" on success.
std::string DeviceGet(int* device);
std::string DeviceSet(int device);
// The device's name ("NVIDIA H200"), or "" if it cannot be read.
std::string DeviceName(int device);

// Synchronous copies (they wait for the work queued before them on the default stream).
void CopyToDevice(void* dst, const void* src, int64_t bytes);
void CopyToHost(void* dst, const void* src, int64_t bytes);
// Asynchronous device-to-device copy and memset on the default stream.
void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes);
void MemsetAsync(void* ptr, int value, int64_t bytes);
void DeviceSynchronize();

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_DEVICE_API_H_
