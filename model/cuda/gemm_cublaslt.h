// The cuBLASLt GemmRunner (gemm.h): one handle and one workspace per runner; per distinct spec
// and operand alignment one matmul descriptor, four layouts and the heuristic's first algorithm,
// cached, so a train step costs no heuristic queries after the first.
#ifndef MODEL_CUDA_GEMM_CUBLASLT_H_
#define MODEL_CUDA_GEMM_CUBLASLT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

// nullptr and *error set if the handle cannot be created. The workspace is allocated at the
// first Run (so that a model can check its whole memory plan before allocating anything);
// failing that allocation aborts with the CUDA error.
std::unique_ptr<GemmRunner> MakeCublasLtRunner(int64_t workspace_bytes, std::string* error);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_GEMM_CUBLASLT_H_
