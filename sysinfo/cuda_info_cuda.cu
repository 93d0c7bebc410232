// ProbeCuda with the CUDA runtime API. No device, or no driver, is a reason, not an error.
// cudaGetDeviceCount, cudaGetDeviceProperties and cudaDeviceGetAttribute create no context and
// need no current device; only the free-memory query (cudaMemGetInfo) works on the current
// device's context, so only CudaProbe::kWithFreeMemory calls cudaSetDevice, and it restores the
// caller's current device after. (ddp_step binds each rank's GPU before building its model: a
// probe that left the last GPU current put every rank's model there.)
#include <cuda_runtime.h>

#include <string>

#include "sysinfo/cuda_info.h"

namespace sysinfo {
namespace {

std::string Explain(cudaError_t err) {
  std::string s = cudaGetErrorString(err);
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
    s += " (no NVIDIA driver or GPU on this machine)";
  }
  return s;
}

int Attr(cudaDeviceAttr attr, int dev) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) return 0;
  return v;
}

// Restores the calling thread's current device on destruction, if it changed.
class CurrentDeviceGuard {
 public:
  CurrentDeviceGuard() { ok_ = cudaGetDevice(&saved_) == cudaSuccess; }
  ~CurrentDeviceGuard() {
    int now = -1;
    if (ok_ && cudaGetDevice(&now) == cudaSuccess && now != saved_) cudaSetDevice(saved_);
    cudaGetLastError();
  }
  CurrentDeviceGuard(const CurrentDeviceGuard&) = delete;
  CurrentDeviceGuard& operator=(const CurrentDeviceGuard&) = delete;

 private:
  int saved_ = 0;
  bool ok_ = false;
};

}  // namespace

std::string SelectCudaDevice(int index) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return "cannot select CUDA device " + std::to_string(index) + ": " + Explain(err);
  }
  if (index < 0 || index >= count) {
    return "CUDA device " + std::to_string(index) + " does not exist: this process sees " +
           std::to_string(count) + " (0.." + std::to_string(count - 1) + ")";
  }
  err = cudaSetDevice(index);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return "cudaSetDevice(" + std::to_string(index) + ") failed: " + Explain(err);
  }
  return "";
}

CudaInventory ProbeCuda(CudaProbe what) {
  CudaInventory inv;
  inv.compiled_with_cuda = true;
  cudaRuntimeGetVersion(&inv.runtime_version);
  cudaDriverGetVersion(&inv.driver_version);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    inv.reason = Explain(err);
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return inv;
  }
  if (count == 0) {
    inv.reason = "the driver reports 0 CUDA devices";
    return inv;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    CudaDevice dev;
    dev.index = d;
    dev.name = prop.name;
    dev.cc_major = prop.major;
    dev.cc_minor = prop.minor;
    dev.sm_count = prop.multiProcessorCount;
    dev.total_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    dev.mem_bus_bits = prop.memoryBusWidth;
    dev.l2_bytes = prop.l2CacheSize;
    dev.sm_clock_khz = Attr(cudaDevAttrClockRate, d);
    dev.mem_clock_khz = Attr(cudaDevAttrMemoryClockRate, d);
    inv.devices.push_back(dev);
  }
  if (what == CudaProbe::kWithFreeMemory) {
    CurrentDeviceGuard restore;
    for (CudaDevice& dev : inv.devices) {
      size_t free_b = 0, total_b = 0;
      if (cudaSetDevice(dev.index) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        dev.free_bytes = static_cast<int64_t>(free_b);
      }
      cudaGetLastError();
    }
  }
  inv.available = !inv.devices.empty();
  if (!inv.available) inv.reason = "no device answered cudaGetDeviceProperties";
  return inv;
}

}  // namespace sysinfo
