// The CPU matmul the benchmark times: OpenBLAS sgemm (OpenMP build), row-major, fp32.
#ifndef MICRO_MATMUL_CPU_H_
#define MICRO_MATMUL_CPU_H_

#include <cstdint>
#include <string>

namespace micro {

// c: (m, n) = a: (m, k) @ b: (k, n); row-major, fp32, C overwritten (beta = 0).
void MatmulCpu(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n);

// OpenBLAS's own description: "<config>; core <kernel core it picked>; <threads> threads".
std::string OpenBlasDescription();

}  // namespace micro

#endif  // MICRO_MATMUL_CPU_H_
