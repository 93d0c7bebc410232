// A one-kernel library that exercises cuda_library end to end (nvcc object, archive, link
// into a plain cc_test). Host-only interface.
#ifndef TOOLS_BAZEL_TESTDATA_ADD_ONE_H_
#define TOOLS_BAZEL_TESTDATA_ADD_ONE_H_

#include <string>
#include <vector>

namespace cuda_rule_test {

// Adds 1 to every element on the GPU. Returns "" on success, else the CUDA error text.
std::string AddOneOnDevice(std::vector<float>* data);

// The compute capability the kernel was compiled for (e.g. 90), read with
// cudaFuncGetAttributes; 0 with an error text when it cannot be read.
int KernelBinaryVersion(std::string* error);

}  // namespace cuda_rule_test

#endif  // TOOLS_BAZEL_TESTDATA_ADD_ONE_H_
