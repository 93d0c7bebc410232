// Kernel and launcher for add_one.h.
#include <cuda_runtime.h>

#include "tools/bazel/testdata/add_one.h"

namespace cuda_rule_test {
namespace {

__global__ void add_one_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

}  // namespace

std::string AddOneOnDevice(std::vector<float>* data) {
  int n = static_cast<int>(data->size());
  float* d = nullptr;
  cudaError_t err = cudaMalloc(&d, n * sizeof(float));
  if (err != cudaSuccess) return cudaGetErrorString(err);
  cudaMemcpy(d, data->data(), n * sizeof(float), cudaMemcpyHostToDevice);
  add_one_kernel<<<(n + 255) / 256, 256>>>(d, n);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(data->data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err == cudaSuccess ? "" : cudaGetErrorString(err);
}

int KernelBinaryVersion(std::string* error) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, add_one_kernel);
  if (err != cudaSuccess) {
    *error = cudaGetErrorString(err);
    return 0;
  }
  return attr.binaryVersion;
}

}  // namespace cuda_rule_test
