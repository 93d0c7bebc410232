// Host-side helpers of cuda_info.h shared by the CUDA and no-CUDA builds.
#include "sysinfo/cuda_info.h"

namespace sysinfo {

double CudaDevice::TheoreticalBandwidth() const { return 2.0 * mem_clock_khz * 1e3 * mem_bus_bits / 8.0; }

const CudaDevice* FindCudaDevice(const CudaInventory& inventory, int index) {
  for (const CudaDevice& d : inventory.devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

std::string CudaVersionString(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace sysinfo
