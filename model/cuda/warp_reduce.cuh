// Sum and max over the 32 lanes of a warp; every lane gets the result. All lanes must call.
// Shared by the model's kernels (launch.cuh) and the elementwise benchmark's.
#ifndef MODEL_CUDA_WARP_REDUCE_CUH_
#define MODEL_CUDA_WARP_REDUCE_CUH_

namespace model {
namespace cuda {

constexpr unsigned kWarpFullMask = 0xffffffffu;

__device__ __forceinline__ float WarpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kWarpFullMask, v, offset);
  return v;
}

__device__ __forceinline__ float WarpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(kWarpFullMask, v, offset));
  }
  return v;
}

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_WARP_REDUCE_CUH_
