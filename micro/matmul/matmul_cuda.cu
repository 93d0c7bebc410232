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

}  // namespace

struct CudaMatmul::Impl {
  CudaGemmType type = CudaGemmType::kFp32;
  int64_t m = 0, k = 0, n = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  DeviceBuffer a, b, c;
  L2Flusher flusher;
  EventTimer timer;

  ~Impl() {
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
};

CudaMatmul::CudaMatmul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaMatmul::~CudaMatmul() = default;

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
  auto impl = std::make_unique<Impl>();
  impl->type = type;
  impl->m = m;
  impl->k = k;
  impl->n = n;
  const size_t eb = StorageBytes(type);
  const size_t bytes = eb * static_cast<size_t>(m * k + k * n + m * n);
  std::string e = CheckDeviceMemory(bytes, "A, B and C of the GEMM");
  if (!e.empty()) return fail(e);
  auto run = [&](cudaError_t err, const char* call) {
    if (err != cudaSuccess && e.empty()) e = ErrorMessage(call, err, __FILE__, __LINE__);
  };
  run(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  if (!e.empty()) return fail(e);
  cublasStatus_t st = cublasCreate(&impl->handle);
  if (st != CUBLAS_STATUS_SUCCESS) return fail(ErrorMessage("cublasCreate", st, __FILE__, __LINE__));
  st = cublasSetStream(impl->handle, impl->stream);
  if (st != CUBLAS_STATUS_SUCCESS) return fail(ErrorMessage("cublasSetStream", st, __FILE__, __LINE__));
  for (std::string r : {impl->a.Allocate(eb * m * k), impl->b.Allocate(eb * k * n),
                        impl->c.Allocate(eb * m * n), impl->flusher.Init(), impl->timer.Init()}) {
    if (!r.empty()) return fail(r);
  }
  e = impl->FillAll();
  if (!e.empty()) return fail(e);
  return std::unique_ptr<CudaMatmul>(new CudaMatmul(std::move(impl)));
}

std::string CudaMatmul::RunAndGather(const std::vector<std::pair<int64_t, int64_t>>& entries,
                                     std::vector<float>* a_rows, std::vector<float>* b_cols,
                                     std::vector<float>* c) {
  Impl& im = *impl_;
  std::string e = im.Gemm();
  if (!e.empty()) return e;
  const int s = static_cast<int>(entries.size());
  std::vector<int64_t> rows(s), cols(s);
  for (int i = 0; i < s; ++i) {
    rows[i] = entries[i].first;
    cols[i] = entries[i].second;
  }
  DeviceBuffer d_rows, d_cols, d_a, d_b, d_c;
  for (std::string r : {d_rows.Allocate(s * sizeof(int64_t)), d_cols.Allocate(s * sizeof(int64_t)),
                        d_a.Allocate(s * im.k * sizeof(float)), d_b.Allocate(s * im.k * sizeof(float)),
                        d_c.Allocate(s * sizeof(float))}) {
    if (!r.empty()) return r;
  }
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(d_rows.get(), rows.data(), s * sizeof(int64_t), cudaMemcpyHostToDevice, im.stream));
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(d_cols.get(), cols.data(), s * sizeof(int64_t), cudaMemcpyHostToDevice, im.stream));
  auto gather = [&](auto tag) {
    using T = decltype(tag);
    return GatherSamples<T>(im.a.get(), im.b.get(), im.c.get(), im.k, im.n, d_rows.as<int64_t>(),
                            d_cols.as<int64_t>(), s, d_a.as<float>(), d_b.as<float>(), d_c.as<float>(),
                            im.stream);
  };
  if (im.type == CudaGemmType::kBf16)
    e = gather(__nv_bfloat16{});
  else if (im.type == CudaGemmType::kFp16)
    e = gather(__half{});
  else
    e = gather(float{});
  if (!e.empty()) return e;
  a_rows->resize(s * im.k);
  b_cols->resize(s * im.k);
  c->resize(s);
  MICRO_RETURN_IF_ERROR(cudaMemcpyAsync(a_rows->data(), d_a.get(), s * im.k * sizeof(float),
                                        cudaMemcpyDeviceToHost, im.stream));
  MICRO_RETURN_IF_ERROR(cudaMemcpyAsync(b_cols->data(), d_b.get(), s * im.k * sizeof(float),
                                        cudaMemcpyDeviceToHost, im.stream));
  MICRO_RETURN_IF_ERROR(
      cudaMemcpyAsync(c->data(), d_c.get(), s * sizeof(float), cudaMemcpyDeviceToHost, im.stream));
  MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(im.stream));
  return "";
}

std::string CudaMatmul::TimeOnce(double* seconds) {
  Impl& im = *impl_;
  return im.timer.Time(
      im.stream, &im.flusher, [&] { return im.Gemm(); }, seconds);
}

}  // namespace micro
