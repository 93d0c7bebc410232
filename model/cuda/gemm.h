// Every matrix product of the CUDA model as one value type, GemmSpec, in cuBLAS's column-major
// terms, and the GemmRunner that executes it: cuBLASLt on the GPU (gemm_cublaslt.cu), or a
// plain reference loop (gemm_reference.cc) for host tests and the kernel emulator.
//
//   D (m x n, ld ldc) = alpha * op(A) op(B) + beta * C   [+ bias (m)]   [epilogue]
//   op(A) is (m x k): A stored (k x m, ld lda) when trans_a, else (m x k); likewise op(B) (k x n).
//   Batched: matrix p of X starts stride_x elements after matrix p-1.
//   Epilogues: kGeluAux  D = gelu(x), aux = x          (x = the value before the epilogue)
//              kDGelu    D = x * gelu'(aux)
// A and B share one storage type; C and D another (bf16 inputs may accumulate into fp32 D).
// Math is fp32 accumulation always; tf32 lets fp32 inputs use TF32 tensor cores.
// The row-major helpers (gemm_spec.h) build these for the model's Linear and attention products.
#ifndef MODEL_CUDA_GEMM_H_
#define MODEL_CUDA_GEMM_H_

#include <cstdint>
#include <memory>
#include <string>

namespace model {
namespace cuda {

enum class StorageType { kFp32, kBf16 };
int StorageBytes(StorageType t);
const char* StorageName(StorageType t);

enum class GemmEpilogue { kNone, kGeluAux, kDGelu };

struct GemmSpec {
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;  // ldc: C and D
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  StorageType ab_type = StorageType::kFp32;
  StorageType cd_type = StorageType::kFp32;
  bool tf32 = false;  // fp32 A/B only
  bool bias = false;  // add bias (m) of cd_type before the epilogue
  GemmEpilogue epilogue = GemmEpilogue::kNone;
  int64_t aux_ld = 0;  // aux is (m x n, ld aux_ld) of cd_type
};

struct GemmPointers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;  // read when beta != 0: d itself, or another buffer of D's layout
  void* d = nullptr;
  const void* bias = nullptr;
  void* aux = nullptr;  // written by kGeluAux, read by kDGelu
};

// "" if the spec is well formed (sizes positive, leading dimensions cover the stored rows,
// epilogue arguments consistent), else what is wrong.
std::string CheckGemmSpec(const GemmSpec& spec);
// Short text for messages: "gemm m=768 n=12288 k=3072 A^T bf16->bf16 bias gelu_aux batch=1".
std::string DescribeGemm(const GemmSpec& spec);

// Largest power of two <= 16 that divides the address and every byte offset a matrix start or
// column start can have (ld and batch stride): what the kernel may assume about alignment.
int64_t AlignmentBytes(const void* ptr, int64_t ld_elements, int64_t stride_elements, int64_t element_bytes);

class GemmRunner {
 public:
  virtual ~GemmRunner() = default;
  virtual const char* name() const = 0;  // "cublasLt" / "reference"
  // Device memory the runner allocates at its first Run (part of the model's memory plan).
  virtual int64_t workspace_bytes() const = 0;
  // Runs on the model's stream (model_stream.cuh; asynchronous on the GPU), so that a CUDA graph
  // capture of that stream records it (the reference runner records into the emulator's
  // capture). Aborts with the spec and the error if the spec is malformed or the library fails.
  virtual void Run(const GemmSpec& spec, const GemmPointers& ptrs) = 0;
  // Whether Run can execute this spec with pointers of this alignment (cuBLASLt: its heuristic
  // finds an algorithm; GeLU epilogues are not available for every type).
  virtual bool Supports(const GemmSpec& spec, const GemmPointers& ptrs) = 0;
};

// The workspace the cuBLASLt runner (gemm_cublaslt.h) uses: NVIDIA's recommendation for Hopper.
inline constexpr int64_t kCublasLtWorkspaceBytes = int64_t{32} << 20;

// The host reference: loops over host-addressable memory (accumulates in double).
std::unique_ptr<GemmRunner> MakeReferenceGemmRunner();

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_GEMM_H_
