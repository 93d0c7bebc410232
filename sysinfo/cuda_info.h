// CUDA device inventory: name, SMs, memory, clocks, compute capability, driver and runtime.
// The interface is host-only; cuda_info_cuda.cu implements it with the runtime API, and
// cuda_info_none.cc where the build has no CUDA toolkit. Probing never crashes: without a
// usable device, `available` is false and `reason` says why.
#ifndef SYSINFO_CUDA_INFO_H_
#define SYSINFO_CUDA_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace sysinfo {

struct CudaDevice {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;  // compute capability
  int sm_count = 0;
  int64_t total_bytes = 0;
  int64_t free_bytes = -1;  // -1: not measured (needs a context: CudaProbe::kWithFreeMemory)
  int sm_clock_khz = 0;     // max SM clock
  int mem_clock_khz = 0;    // max memory clock
  int mem_bus_bits = 0;
  int64_t l2_bytes = 0;
  // 2 (DDR) x memory clock x bus width / 8; the theoretical DRAM bandwidth.
  double TheoreticalBandwidth() const;
};

struct CudaInventory {
  bool compiled_with_cuda = false;  // false: this binary was built without the toolkit
  bool available = false;           // at least one device usable
  std::string reason;               // why not available
  int driver_version = 0;           // e.g. 13000
  int runtime_version = 0;
  std::vector<CudaDevice> devices;
};

enum class CudaProbe {
  // Names, SMs, memory sizes, clocks (cudaGetDeviceProperties, cudaDeviceGetAttribute): no
  // context is created on any device and the calling thread's current device is untouched.
  kNoContext,
  // Also the free memory of each device (cudaMemGetInfo), which needs a context on each: every
  // device is made current in turn (creating its primary context), then the calling thread's
  // current device is restored. For tools that describe the machine (//tools:devices).
  kWithFreeMemory,
};
CudaInventory ProbeCuda(CudaProbe what = CudaProbe::kNoContext);

// Makes CUDA device `index` the calling thread's current device (cudaSetDevice, which creates
// its primary context). "" on success; else why not (no such device, no driver, no toolkit).
std::string SelectCudaDevice(int index);

// The device of `inventory` whose index is `index`; nullptr when there is none.
const CudaDevice* FindCudaDevice(const CudaInventory& inventory, int index);

// "13.0" from 13000; "none" for 0.
std::string CudaVersionString(int v);

}  // namespace sysinfo

#endif  // SYSINFO_CUDA_INFO_H_
