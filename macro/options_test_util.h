// For the tests of the benchmarks' option resolution (step_options, gpt_decode_options): the
// CUDA inventories they resolve against, and the check that an error names a flag.
#ifndef MACRO_OPTIONS_TEST_UTIL_H_
#define MACRO_OPTIONS_TEST_UTIL_H_

#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "sysinfo/cuda_info.h"

namespace macro {

// No usable CUDA device, with the probe's reason.
inline sysinfo::CudaInventory NoGpu() {
  sysinfo::CudaInventory inv;
  inv.reason = "CUDA driver version is insufficient";
  return inv;
}

// One device of compute capability cc_major.x.
inline sysinfo::CudaInventory OneGpu(int cc_major) {
  sysinfo::CudaInventory inv;
  inv.available = true;
  sysinfo::CudaDevice d;
  d.name = "NVIDIA H200";
  d.cc_major = cc_major;
  inv.devices.push_back(d);
  return inv;
}

// `o` is an error whose message contains `text` (the flag it names).
template <typename T>
void ExpectErrorNames(const absl::StatusOr<T>& o, const std::string& text) {
  ASSERT_FALSE(o.ok()) << "expected an error naming " << text;
  EXPECT_NE(o.status().message().find(text), std::string::npos) << o.status().message();
}

}  // namespace macro

#endif  // MACRO_OPTIONS_TEST_UTIL_H_
