// The cases of //micro:matmul, registered with Google Benchmark by name:
//   BM_Matmul/cpu/<onednn|openblas>/fp32/M:<m>/K:<k>/N:<n>
//   BM_Matmul/cpu/onednn/bf16/out:fp32/M:<m>/K:<k>/N:<n>
//   BM_Matmul/cuda/<dtype>/M:<m>/K:<k>/N:<n>
// CPU: one family per library, oneDNN's matmul primitive and OpenBLAS's sgemm (fp32), each over
// squares 64..4096 and GPT-2 shapes at B*T = 1024; each case's label names the kernel that ran
// (oneDNN's implementation and effective ISA; OpenBLAS's core and whether OPENBLAS_CORETYPE
// forced it), then the peak.
// CPU bf16: bf16 A and B, fp32 accumulation and an fp32 C (the name's out:fp32) on oneDNN's matmul
// primitive, as the bf16 train step runs its GEMMs; the label names oneDNN's implementation
// (brg:avx512_core_amx_bf16, brg:avx512_core_bf16); checked against the fp32 values within
// bf16's tolerance; MFU-style pct_of_peak against the CPU's bf16 peak. Registered only where the
// CPU has bf16 units and oneDNN uses them (else one line on stderr says why).
// CUDA: cuBLAS fp32, tf32, bf16, fp16, squares 64..16384 and GPT-2 shapes at B*T = 12288
// (batch 12 x 1024 tokens). GPT-2 (124M) shapes, K x N: 768 x 2304 (qkv), 768 x 768 (attention
// projection), 768 x 3072 (MLP up), 3072 x 768 (MLP down), 768 x 50304 (lm head).
// Each case checks a sample of its output against a double dot product before timing; CUDA
// cases are registered only when the probe finds a usable device (else the binary says on
// stderr how many were left out and why). Timing is manual (steady clock
// per sgemm on CPU; cudaEvents after an L2 flush on CUDA), so names end in /manual_time.
#ifndef MICRO_MATMUL_MATMUL_CASES_H_
#define MICRO_MATMUL_MATMUL_CASES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting/dtype.h"
#include "micro/common/bench_common.h"
#include "micro/common/cuda_case.h"
#include "model/cpu_gemm_backend.h"

namespace micro {

struct MatmulShape {
  int64_t m, k, n;
};

// The shapes of a size set (quick: tiny squares and GPT shapes at B*T = 16, for tests).
std::vector<MatmulShape> CpuMatmulShapes(SizeSet sizes);
std::vector<MatmulShape> CudaMatmulShapes(SizeSet sizes);
std::vector<accounting::Dtype> CudaMatmulDtypes();

// "cpu/onednn", "cpu/openblas": the device part of a CPU case's name.
std::string CpuMatmulDevice(model::CpuGemmBackend library);

// "BM_Matmul/cpu/onednn/fp32/M:2048/K:2048/N:2048" (device "cpu/onednn").
std::string MatmulCaseName(const char* device, accounting::Dtype dtype, const MatmulShape& s);

// "BM_Matmul/cpu/onednn/bf16/out:fp32/M:2048/K:2048/N:2048".
std::string CpuBf16MatmulCaseName(const MatmulShape& s);
// Why the CPU bf16 cases are not registered here; empty when they are.
std::string CpuBf16Unsupported();

// Registers every case (the CUDA ones only where a CUDA device is usable: cuda_case.h); returns
// their names (without the /manual_time suffix) and the CUDA cases left out.
RegisteredCases RegisterMatmulBenchmarks(SizeSet sizes, std::shared_ptr<PeakProvider> peaks);

}  // namespace micro

#endif  // MICRO_MATMUL_MATMUL_CASES_H_
