// MODEL_HD marks small inline math functions that both the CPU code and a CUDA kernel use:
// empty in host-only builds, `__host__ __device__` when nvcc compiles the including file.
#ifndef MODEL_MODEL_HD_H_
#define MODEL_MODEL_HD_H_

#if defined(__CUDACC__)
#define MODEL_HD __host__ __device__
#else
#define MODEL_HD
#endif

#endif  // MODEL_MODEL_HD_H_
