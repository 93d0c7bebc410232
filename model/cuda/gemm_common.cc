// GemmSpec checks and descriptions shared by every runner.
#include <cstdint>
#include <string>

#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

int StorageBytes(StorageType t) { return t == StorageType::kBf16 ? 2 : 4; }
const char* StorageName(StorageType t) { return t == StorageType::kBf16 ? "bf16" : "fp32"; }

std::string CheckGemmSpec(const GemmSpec& s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (s.m < 1 || s.n < 1 || s.k < 1) {
    return "sizes m=" + str(s.m) + " n=" + str(s.n) + " k=" + str(s.k) + " must be >= 1";
  }
  if (s.batch < 1) return "batch=" + str(s.batch) + " must be >= 1";
  const int64_t a_rows = s.trans_a ? s.k : s.m;
  const int64_t b_rows = s.trans_b ? s.n : s.k;
  if (s.lda < a_rows) return "lda=" + str(s.lda) + " < stored rows of A " + str(a_rows);
  if (s.ldb < b_rows) return "ldb=" + str(s.ldb) + " < stored rows of B " + str(b_rows);
  if (s.ldc < s.m) return "ldc=" + str(s.ldc) + " < m=" + str(s.m);
  if (s.tf32 && s.ab_type != StorageType::kFp32) return "tf32 needs fp32 A and B";
  if (s.epilogue != GemmEpilogue::kNone) {
    if (s.aux_ld < s.m) return "aux_ld=" + str(s.aux_ld) + " < m=" + str(s.m);
    if (s.batch != 1) return "GeLU epilogues are not batched here";
  }
  if (s.epilogue == GemmEpilogue::kDGelu && s.bias) return "kDGelu takes no bias";
  return "";
}

std::string DescribeGemm(const GemmSpec& s) {
  std::string out = "gemm m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                    " k=" + std::to_string(s.k) + (s.trans_a ? " A^T" : " A") +
                    (s.trans_b ? " B^T " : " B ") + StorageName(s.ab_type) + "->" + StorageName(s.cd_type);
  if (s.tf32) out += " tf32";
  if (s.beta != 0.0f) out += " beta=" + std::to_string(s.beta);
  if (s.bias) out += " bias";
  if (s.epilogue == GemmEpilogue::kGeluAux) out += " gelu_aux";
  if (s.epilogue == GemmEpilogue::kDGelu) out += " dgelu";
  if (s.batch > 1) out += " batch=" + std::to_string(s.batch);
  return out;
}

int64_t AlignmentBytes(const void* ptr, int64_t ld_elements, int64_t stride_elements, int64_t element_bytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(ptr) | 16u;
  bits |= static_cast<uint64_t>(ld_elements * element_bytes);
  if (stride_elements != 0) bits |= static_cast<uint64_t>(stride_elements * element_bytes);
  return static_cast<int64_t>(bits & (~bits + 1));  // lowest set bit, at most 16
}

}  // namespace cuda
}  // namespace model
