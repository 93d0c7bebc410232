// CudaMatmul (matmul_cuda.h): cublasGemmEx per storage type, sample gather kernel, timing.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "micro/common/cuda_check.cuh"
#include "micro/common/cuda_util.cuh"
#include "micro/matmul/matmul_cuda.h"
#include "model/cuda/cuda_check.cuh"

namespace micro {
namespace {

// ---- kernels ------------------------------------------------------------------------------

// a: (m, k), b: (k, n), c: (m, n) row-major; rows, cols: (S); a_rows, b_cols: (S, k); c_out: (S).
// One block per sample: threads stride over k.
template <typename T>
__global__ void GatherSamplesKernel(const T* a, const T* b, const T* c, int64_t k, int64_t n,
                                    const int64_t* rows, const int64_t* cols, float* a_rows, float* b_cols,
                                    float* c_out) {
  const int s = blockIdx.x;
  const int64_t i = rows[s], j = cols[s];
  for (int64_t kk = threadIdx.x; kk < k; kk += blockDim.x) {
    a_rows[s * k + kk] = ToFloat(a[i * k + kk]);
    b_cols[s * k + kk] = ToFloat(b[kk * n + j]);
  }
  if (threadIdx.x == 0) c_out[s] = ToFloat(c[i * n + j]);
}

// ---- launchers ----------------------------------------------------------------------------

template <typename T>
std::string GatherSamples(const void* a, const void* b, const void* c, int64_t k, int64_t n,
                          const int64_t* rows, const int64_t* cols, int samples, float* a_rows, float* b_cols,
                          float* c_out, cudaStream_t stream) {
  if (samples <= 0) return "";
  GatherSamplesKernel<T><<<samples, 256, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                      static_cast<const T*>(c), k, n, rows, cols, a_rows,
                                                      b_cols, c_out);
  MICRO_RETURN_IF_ERROR(cudaGetLastError());
  return "";
}

size_t StorageBytes(CudaGemmType t) { return (t == CudaGemmType::kBf16 || t == CudaGemmType::kFp16) ? 2 : 4; }

cudaDataType_t StorageType(CudaGemmType t) {
  switch (t) {
    case CudaGemmType::kBf16: return CUDA_R_16BF;
    case CudaGemmType::kFp16: return CUDA_R_16F;
    default: return CUDA_R_32F;
  }
}

cublasComputeType_t ComputeType(CudaGemmType t) {
  return t == CudaGemmType::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

template <typename T>
std::string Fill(void* p, int64_t n, uint64_t seed, cudaStream_t stream) {
  return FillHash<T>(static_cast<T*>(p), n, seed, false, stream);
}

// CudaMatmul on cuBLAS: A, B and C in the storage type, on its own stream and handle.
struct CublasMatmul final : CudaMatmul {
  CudaGemmType type = CudaGemmType::kFp32;
  int64_t m = 0, k = 0, n = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  DeviceBuffer a, b, c;
  L2Flusher flusher;
  EventTimer timer;

  ~CublasMatmul() override {
    if (handle != nullptr) cublasDestroy(handle);
    if (stream != nullptr) CUDA_CHECK(cudaStreamDestroy(stream));
  }

  std::string FillAll() {
    const bool half = StorageBytes(type) == 2;
    std::string e;
    auto fill = [&](DeviceBuffer& buf, int64_t count, uint64_t seed) {
      if (!e.empty()) return;
      if (type == CudaGemmType::kBf16)
        e = Fill<__nv_bfloat16>(buf.get(), count, seed, stream);
      else if (half)
        e = Fill<__half>(buf.get(), count, seed, stream);
      else
        e = Fill<float>(buf.get(), count, seed, stream);
    };
    fill(a, m * k, 11);
    fill(b, k * n, 12);
    fill(c, m * n, 13);
    if (!e.empty()) return e;
    MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    return "";
  }

  std::string Gemm() {
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t st = StorageType(type);
    // Row-major C = A B is column-major C^T = B^T A^T: (n x m) = (n x k)(k x m).
    MICRO_RETURN_IF_ERROR(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                                       static_cast<int>(m), static_cast<int>(k), &alpha, b.get(), st,
                                       static_cast<int>(n), a.get(), st, static_cast<int>(k), &beta, c.get(),
                                       st, static_cast<int>(n), ComputeType(type), CUBLAS_GEMM_DEFAULT));
    return "";
  }

  std::string RunAndGather(const std::vector<std::pair<int64_t, int64_t>>& entries,
                           std::vector<float>* a_rows, std::vector<float>* b_cols,
                           std::vector<float>* c_entries) override;
  std::string TimeOnce(double* seconds) override;
};

}  // namespace

std::unique_ptr<CudaMatmul> CudaMatmul::Create(CudaGemmType type, int64_t m, int64_t k, int64_t n,
                                               std::string* error) {
  auto fail = [&](const std::string& e) {
    *error = e;
    return std::unique_ptr<CudaMatmul>();
  };
  const int64_t kIntMax = 2147483647;
  if (m < 1 || k < 1 || n < 1 || m > kIntMax || k > kIntMax || n > kIntMax) {
    return fail("matmul shape M=" + std::to_string(m) + " K=" + std::to_string(k) +
                " N=" + std::to_string(n) + " out of range: each must be in [1, 2^31 - 1]");
  }
  auto mm = std::make_unique<CublasMatmul>();
  mm->type = type;
  mm->m = m;
  mm->k = k;
  mm->n = n;
  const size_t eb = StorageBytes(type);
  const size_t bytes = eb * static_cast<size_t>(m * k + k * n + m * n);
  std::string e = CheckDeviceMemory(bytes, "A, B and C of the GEMM");
  if (!e.empty()) return fail(e);
  auto run = [&](cudaError_t err, const char* call) {
    if (err != cudaSuccess && e.empty()) e = ErrorMessage(call, err, __FILE__, __LINE__);
  };
  run(cudaStreamCreateWithFlags(&mm->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  if (!e.empty()) return fail(e);
  cublasStatus_t st = cublasCreate(&mm->handle);
  if (st != CUBLAS_STATUS_SUCCESS) return fail(ErrorMessage("cublasCreate", st, __FILE__, __LINE__));
  st = cublasSetStream(mm->handle, mm->stream);
  if (st != CUBLAS_STATUS_SUCCESS) return fail(ErrorMessage("cublasSetStream", st, __FILE__, __LINE__));
  for (std::string r : {mm->a.Allocate(eb * m * k), mm->b.Allocate(eb * k * n), mm->c.Allocate(eb * m * n),
                        mm->flusher.Init(), mm->timer.Init()}) {
    if (!r.empty()) return fail(r);
  }
  e = mm->FillAll();
  if (!e.empty()) return fail(e);
  return mm;
}

std::string CublasMatmul::RunAndGather(const std::vector<std::pair<int64_t, int64_t>>& entries,
                                       std::vector<float>* a_rows, std::vector<float>* b_cols,
                                       std::vector<float>* c_entries) {
  std::string e = Gemm();
  if (!e.empty()) return e;
  const int s = static_cast<int>(entries.size());
  std::vector<int64_t> rows(s), cols(s);
  for (int i = 0; i < s; ++i) {
    rows[i] = entries[i].first;
    cols[i] = entries[i].second;
  }
  DeviceBuffer d_rows, d_cols, d_a, d_b, d_c;
  for (std::string r : {d_rows.Allocate(s * sizeof(int64_t)), d_cols.Allocate(s * sizeof(int64_t)),
                        d_a.Allocate(s * k * sizeof(float)), d_b.Allocate(s * k * sizeof(float)),
                        d_c.Allocate(s * sizeof(float))}) {
    if (!r.empty()) return r;
  }
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(d_rows.get(), rows.data(), s * sizeof(int64_t), cudaMemcpyHostToDevice, stream));
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(d_cols.get(), cols.data(), s * sizeof(int64_t), cudaMemcpyHostToDevice, stream));
  auto gather = [&](auto tag) {
    using T = decltype(tag);
    return GatherSamples<T>(a.get(), b.get(), c.get(), k, n, d_rows.as<int64_t>(), d_cols.as<int64_t>(), s,
                            d_a.as<float>(), d_b.as<float>(), d_c.as<float>(), stream);
  };
  if (type == CudaGemmType::kBf16)
    e = gather(__nv_bfloat16{});
  else if (type == CudaGemmType::kFp16)
    e = gather(__half{});
  else
    e = gather(float{});
  if (!e.empty()) return e;
  a_rows->resize(s * k);
  b_cols->resize(s * k);
  c_entries->resize(s);
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(a_rows->data(), d_a.get(), s * k * sizeof(float), cudaMemcpyDeviceToHost, stream));
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(b_cols->data(), d_b.get(), s * k * sizeof(float), cudaMemcpyDeviceToHost, stream));
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(c_entries->data(), d_c.get(), s * sizeof(float), cudaMemcpyDeviceToHost, stream));
  MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return "";
}

std::string CublasMatmul::TimeOnce(double* seconds) {
  return timer.Time(
      stream, &flusher, [&] { return Gemm(); }, seconds);
}

}  // namespace micro
