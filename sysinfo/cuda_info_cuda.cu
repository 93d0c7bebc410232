// ProbeCuda with the CUDA runtime API. No device, or no driver, is a reason, not an error.
#include <cuda_runtime.h>

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

}  // namespace

CudaInventory ProbeCuda() {
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
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
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
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(d) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      dev.free_bytes = static_cast<int64_t>(free_b);
    }
    inv.devices.push_back(dev);
  }
  inv.available = !inv.devices.empty();
  if (!inv.available) inv.reason = "no device answered cudaGetDeviceProperties";
  return inv;
}

}  // namespace sysinfo
