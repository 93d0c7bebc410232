// device_api.h on the CUDA runtime, on the model's stream (model_stream.cuh).
#include <cuda_runtime.h>

#include <string>

#include "model/cuda/cuda_check.cuh"
#include "model/cuda/device_api.h"
#include "model/cuda/model_stream.cuh"

namespace model {
namespace cuda {

std::string DeviceAlloc(void** ptr, int64_t bytes) {
  const cudaError_t err = cudaMalloc(ptr, static_cast<size_t>(bytes));
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller reports the failure, the device is fine
    *ptr = nullptr;
    return std::string("cudaMalloc(") + std::to_string(bytes) + " bytes) failed: " + cudaGetErrorString(err);
  }
  return "";
}

void DeviceFree(void* ptr) {
  if (ptr != nullptr) cudaFree(ptr);  // may fail at exit, when the context is gone: ignored
}

std::string DeviceMemoryInfo(int64_t* free_bytes, int64_t* total_bytes) {
  size_t f = 0, t = 0;
  const cudaError_t err = cudaMemGetInfo(&f, &t);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaMemGetInfo failed: ") + cudaGetErrorString(err);
  }
  *free_bytes = static_cast<int64_t>(f);
  *total_bytes = static_cast<int64_t>(t);
  return "";
}

std::string DeviceGet(int* device) {
  const cudaError_t err = cudaGetDevice(device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaGetDevice failed: ") + cudaGetErrorString(err);
  }
  return "";
}

std::string DeviceSet(int device) {
  const cudaError_t err = cudaSetDevice(device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaSetDevice(") + std::to_string(device) + ") failed: " + cudaGetErrorString(err);
  }
  return "";
}

std::string DeviceName(int device) {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return prop.name;
}

// The synchronous copies: queued on the model's stream (after its earlier work), then waited for
// (the host buffers are pageable, so the copy itself is staged synchronously anyway).
void CopyToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, ModelStream()));
  CUDA_CHECK(cudaStreamSynchronize(ModelStream()));
}

void CopyToHost(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, ModelStream()));
  CUDA_CHECK(cudaStreamSynchronize(ModelStream()));
}

void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, ModelStream()));
}

void MemsetAsync(void* ptr, int value, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemsetAsync(ptr, value, static_cast<size_t>(bytes), ModelStream()));
}

void DeviceSynchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

// --- graphs ---
class DeviceGraph {
 public:
  explicit DeviceGraph(cudaGraphExec_t exec) : exec_(exec) {}
  ~DeviceGraph() { cudaGraphExecDestroy(exec_); }  // may fail at exit, when the context is gone
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;
  cudaGraphExec_t exec() const { return exec_; }

 private:
  cudaGraphExec_t exec_;
};

void DeviceGraphDeleter::operator()(DeviceGraph* graph) const { delete graph; }

std::string BeginGraphCapture() {
  // Global mode: while this capture is open, calls that cannot be captured (cudaMalloc, a
  // synchronous copy, a device synchronisation) fail in any thread instead of silently running
  // outside the graph.
  const cudaError_t err = cudaStreamBeginCapture(ModelStream(), cudaStreamCaptureModeGlobal);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaStreamBeginCapture failed: ") + cudaGetErrorString(err);
  }
  return "";
}

DeviceGraphPtr EndGraphCapture(std::string* error) {
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(ModelStream(), &graph);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (graph != nullptr) cudaGraphDestroy(graph);
    *error = std::string(
                 "cudaStreamEndCapture failed (an operation during the capture cannot be "
                 "captured): ") +
             cudaGetErrorString(err);
    return nullptr;
  }
  cudaGraphExec_t exec = nullptr;
  // CUDA 12+ signature: (exec, graph, flags); no flags (no auto-free, no device launch, no upload).
  err = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph does not need it
  if (err != cudaSuccess) {
    cudaGetLastError();
    *error = std::string("cudaGraphInstantiate failed: ") + cudaGetErrorString(err);
    return nullptr;
  }
  return DeviceGraphPtr(new DeviceGraph(exec));
}

bool GraphCapturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(ModelStream(), &status));
  return status != cudaStreamCaptureStatusNone;
}

void LaunchGraph(DeviceGraph& graph) { CUDA_CHECK(cudaGraphLaunch(graph.exec(), ModelStream())); }

}  // namespace cuda
}  // namespace model
