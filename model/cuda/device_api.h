// The few CUDA runtime services the host-only model code (cuda_gpt.cc) needs, behind plain C++
// so that no .cc file includes a CUDA header: device memory, copies, memset, synchronisation,
// the free-memory query and CUDA graphs. device_api_cuda.cu implements them with the runtime API
// on the model's stream (model_stream.cuh: the per-thread default stream); device_api_emu.cc
// with host memory for the kernel emulator.
// Failures of the copy / memset / sync / graph-launch calls abort through CUDA_CHECK (they mean
// a broken device or a bug); allocation, the memory query and the capture return errors the
// caller can report.
#ifndef MODEL_CUDA_DEVICE_API_H_
#define MODEL_CUDA_DEVICE_API_H_

#include <cstddef>
#include <cstdint>
#include <memory>
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

// Synchronous copies (they wait for the work queued before them on the model's stream).
void CopyToDevice(void* dst, const void* src, int64_t bytes);
void CopyToHost(void* dst, const void* src, int64_t bytes);
// Asynchronous device-to-device copy and memset on the model's stream.
void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes);
void MemsetAsync(void* ptr, int value, int64_t bytes);
void DeviceSynchronize();

// --- CUDA graphs (CUDA Programming Guide, "CUDA Graphs": creating a graph by stream capture) ---
// Between BeginGraphCapture and EndGraphCapture the work issued to the model's stream (kernel
// launches, GEMMs, MemsetAsync, CopyDeviceToDevice) is recorded into a graph, not run; each
// kernel keeps the argument values it was issued with, so whatever changes between replays must
// be read from device memory written before LaunchGraph. Not allowed while capturing (the
// runtime fails or invalidates the capture; the emulator aborts naming the call): the
// synchronous copies, DeviceSynchronize, DeviceAlloc. Capture and launch from one host thread.
class DeviceGraph;  // an instantiated graph (cudaGraphExec_t; the recorded closures in emulation)
struct DeviceGraphDeleter {
  void operator()(DeviceGraph* graph) const;  // cudaGraphExecDestroy
};
using DeviceGraphPtr = std::unique_ptr<DeviceGraph, DeviceGraphDeleter>;

// cudaStreamBeginCapture(model stream, cudaStreamCaptureModeGlobal); "" or the runtime's error.
std::string BeginGraphCapture();
// cudaStreamEndCapture, then cudaGraphInstantiate (no flags). nullptr and *error set when the
// capture was invalidated (an illegal call during it) or instantiation failed.
DeviceGraphPtr EndGraphCapture(std::string* error);
// Whether the model's stream is capturing now.
bool GraphCapturing();
// cudaGraphLaunch on the model's stream: asynchronous, ordered after the work before it.
void LaunchGraph(DeviceGraph& graph);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_DEVICE_API_H_
