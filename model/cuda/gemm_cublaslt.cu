// GemmSpec (gemm.h) executed by cublasLtMatmul on the model's stream (model_stream.cuh).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "model/cuda/cuda_check.cuh"
#include "model/cuda/gemm.h"
#include "model/cuda/gemm_cublaslt.h"
#include "model/cuda/model_stream.cuh"

namespace model {
namespace cuda {
namespace {

cudaDataType_t DataType(StorageType t) { return t == StorageType::kBf16 ? CUDA_R_16BF : CUDA_R_32F; }

cublasLtEpilogue_t Epilogue(const GemmSpec& s) {
  switch (s.epilogue) {
    case GemmEpilogue::kGeluAux: return s.bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX;
    case GemmEpilogue::kDGelu: return CUBLASLT_EPILOGUE_DGELU;
    case GemmEpilogue::kNone: break;
  }
  return s.bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

struct Alignments {
  int64_t a, b, c, d, bias, aux;
};

Alignments AlignmentsOf(const GemmSpec& s, const GemmPointers& p) {
  const int64_t ab = StorageBytes(s.ab_type), cd = StorageBytes(s.cd_type);
  Alignments al;
  al.a = AlignmentBytes(p.a, s.lda, s.batch > 1 ? s.stride_a : 0, ab);
  al.b = AlignmentBytes(p.b, s.ldb, s.batch > 1 ? s.stride_b : 0, ab);
  al.c = AlignmentBytes(p.c != nullptr ? p.c : p.d, s.ldc, s.batch > 1 ? s.stride_c : 0, cd);
  al.d = AlignmentBytes(p.d, s.ldc, s.batch > 1 ? s.stride_c : 0, cd);
  al.bias = s.bias ? AlignmentBytes(p.bias, 1, 0, 16) : 16;
  al.aux = s.epilogue != GemmEpilogue::kNone ? AlignmentBytes(p.aux, s.aux_ld, 0, cd) : 16;
  return al;
}

std::string Key(const GemmSpec& s, const Alignments& al) {
  std::string k;
  for (int64_t v : {int64_t{s.trans_a},
                    int64_t{s.trans_b},
                    s.m,
                    s.n,
                    s.k,
                    s.lda,
                    s.ldb,
                    s.ldc,
                    s.batch,
                    s.stride_a,
                    s.stride_b,
                    s.stride_c,
                    static_cast<int64_t>(s.ab_type),
                    static_cast<int64_t>(s.cd_type),
                    int64_t{s.tf32},
                    int64_t{s.bias},
                    static_cast<int64_t>(s.epilogue),
                    s.aux_ld,
                    int64_t{s.beta != 0.0f},
                    al.a,
                    al.b,
                    al.c,
                    al.d,
                    al.bias,
                    al.aux}) {
    k += std::to_string(v);
    k += ',';
  }
  return k;
}

struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo;
  bool supported = false;
  std::string why_not;  // the heuristic's status when unsupported
};

void SetBatch(cublasLtMatrixLayout_t layout, int64_t batch, int64_t stride) {
  if (batch <= 1) return;
  const int32_t count = static_cast<int32_t>(batch);
  CUBLAS_CHECK(
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
  CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                sizeof(stride)));
}

void SetPointers(cublasLtMatmulDesc_t desc, const GemmSpec& s, const GemmPointers& p) {
  if (s.bias) {
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p.bias, sizeof(p.bias)));
  }
  if (s.epilogue != GemmEpilogue::kNone) {
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &p.aux,
                                                sizeof(p.aux)));
  }
}

class CublasLtRunner final : public GemmRunner {
 public:
  CublasLtRunner(cublasLtHandle_t handle, int64_t workspace_bytes)
      : handle_(handle), workspace_bytes_(workspace_bytes) {}

  ~CublasLtRunner() override {
    // Errors are ignored here: at process exit the CUDA context may already be gone.
    for (auto& [key, plan] : plans_) {
      if (plan.desc != nullptr) cublasLtMatmulDescDestroy(plan.desc);
      if (plan.a != nullptr) cublasLtMatrixLayoutDestroy(plan.a);
      if (plan.b != nullptr) cublasLtMatrixLayoutDestroy(plan.b);
      if (plan.c != nullptr) cublasLtMatrixLayoutDestroy(plan.c);
    }
    cublasLtDestroy(handle_);
    if (workspace_ != nullptr) cudaFree(workspace_);
  }

  const char* name() const override { return "cublasLt"; }
  int64_t workspace_bytes() const override { return workspace_bytes_; }

  bool Supports(const GemmSpec& spec, const GemmPointers& ptrs) override {
    if (!CheckGemmSpec(spec).empty()) return false;
    return GetPlan(spec, ptrs).supported;
  }

  void Run(const GemmSpec& s, const GemmPointers& p) override {
    const std::string error = CheckGemmSpec(s);
    if (!error.empty()) {
      std::fprintf(stderr, "cuBLASLt gemm: %s: %s\n", DescribeGemm(s).c_str(), error.c_str());
      std::abort();
    }
    Plan& plan = GetPlan(s, p);
    if (!plan.supported) {
      std::fprintf(stderr, "cuBLASLt gemm: no algorithm for %s (%s)\n", DescribeGemm(s).c_str(),
                   plan.why_not.c_str());
      std::abort();
    }
    if (workspace_ == nullptr && workspace_bytes_ > 0) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      CUDA_CHECK(cudaStreamIsCapturing(ModelStream(), &capturing));
      if (capturing != cudaStreamCaptureStatusNone) {
        // A graph must not allocate (cudaMalloc is not captured): the first Run of a runner
        // must happen outside a capture, as the model's uncaptured first step does.
        std::fprintf(stderr, "cuBLASLt gemm: the workspace would be allocated during a graph capture\n");
        std::abort();
      }
      CUDA_CHECK(cudaMalloc(&workspace_, static_cast<size_t>(workspace_bytes_)));
    }
    SetPointers(plan.desc, s, p);
    const float alpha = s.alpha, beta = s.beta;
    const void* c = s.beta != 0.0f ? p.c : p.d;
    CUBLAS_CHECK(cublasLtMatmul(handle_, plan.desc, &alpha, p.a, plan.a, p.b, plan.b, &beta, c, plan.c, p.d,
                                plan.c, &plan.algo, workspace_, static_cast<size_t>(workspace_bytes_),
                                ModelStream()));
  }

 private:
  Plan& GetPlan(const GemmSpec& s, const GemmPointers& p) {
    const Alignments al = AlignmentsOf(s, p);
    const std::string key = Key(s, al);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    Plan& plan = plans_[key];

    const cublasComputeType_t compute = s.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan.desc, compute, CUDA_R_32F));
    const cublasOperation_t ta = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    const cublasLtEpilogue_t epilogue = Epilogue(s);
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                sizeof(epilogue)));
    if (s.epilogue != GemmEpilogue::kNone) {
      const int64_t aux_ld = s.aux_ld;
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld,
                                                  sizeof(aux_ld)));
    }
    SetPointers(plan.desc, s, p);

    const cudaDataType_t ab = DataType(s.ab_type), cd = DataType(s.cd_type);
    CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan.a, ab, s.trans_a ? s.k : s.m, s.trans_a ? s.m : s.k, s.lda));
    CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan.b, ab, s.trans_b ? s.n : s.k, s.trans_b ? s.k : s.n, s.ldb));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.c, cd, s.m, s.n, s.ldc));
    SetBatch(plan.a, s.batch, s.stride_a);
    SetBatch(plan.b, s.batch, s.stride_b);
    SetBatch(plan.c, s.batch, s.stride_c);

    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = static_cast<uint64_t>(workspace_bytes_);
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                      sizeof(ws)));
    const uint32_t align[4] = {static_cast<uint32_t>(al.a), static_cast<uint32_t>(al.b),
                               static_cast<uint32_t>(al.c), static_cast<uint32_t>(al.d)};
    const cublasLtMatmulPreferenceAttributes_t attrs[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i) {
      CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, attrs[i], &align[i], sizeof(align[i])));
    }
    cublasLtMatmulHeuristicResult_t result;
    int returned = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle_, plan.desc, plan.a, plan.b, plan.c,
                                                             plan.c, pref, 1, &result, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    // Any failure here (NOT_SUPPORTED, or INVALID_VALUE for a combination this version rejects)
    // means no algorithm: Supports() says so and the caller takes another path; Run() aborts.
    if (st == CUBLAS_STATUS_SUCCESS && returned > 0) {
      plan.algo = result.algo;
      plan.supported = true;
    } else {
      plan.why_not = st == CUBLAS_STATUS_SUCCESS ? std::string("the heuristic returned no algorithm")
                                                 : std::string("heuristic: ") + cublasGetStatusName(st);
    }
    return plan;
  }

  cublasLtHandle_t handle_;
  void* workspace_ = nullptr;
  int64_t workspace_bytes_;
  std::map<std::string, Plan> plans_;
};

}  // namespace

std::unique_ptr<GemmRunner> MakeCublasLtRunner(int64_t workspace_bytes, std::string* error) {
  cublasLtHandle_t handle;
  const cublasStatus_t st = cublasLtCreate(&handle);
  if (st != CUBLAS_STATUS_SUCCESS) {
    *error = std::string("cublasLtCreate failed: ") + cublasGetStatusString(st);
    return nullptr;
  }
  return std::make_unique<CublasLtRunner>(handle, workspace_bytes);
}

}  // namespace cuda
}  // namespace model
