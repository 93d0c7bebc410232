// CUDA kernels and launchers for the elementwise ops (elementwise.h), and CudaElementwise.
//
// Pointwise ops (scale, add, triad, gelu, adamw): grid-stride loops over float4 (16-byte,
// coalesced) with a scalar tail; n need not be a multiple of 4, but the arrays must be 16-byte
// aligned (cudaMalloc gives 256). Row ops (layernorm, softmax): one warp per row, float4 loads,
// shuffles for the reductions; C must be a multiple of 4.
// Shapes: n = elements, C = row length, rows = n / C (legend in elementwise.h).
#include <cuda_runtime.h>

#include <cmath>

#include "micro/common/cuda_check.cuh"
#include "micro/common/cuda_util.cuh"
#include "micro/elementwise/elementwise.h"
#include "micro/elementwise/elementwise_cuda.h"
#include "model/adamw_math.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/warp_reduce.cuh"
#include "model/gelu_math.h"

namespace micro {
namespace {

// ---- device math --------------------------------------------------------------------------

__device__ __forceinline__ float GeluTanhDevice(float x) {
  return model::gelu_from_tanh(x, tanhf(model::gelu_tanh_arg(x)));
}

using model::cuda::WarpMax;
using model::cuda::WarpSum;

struct AdamWScalars {
  float lr, beta1, beta2, eps, wd, c1, c2;  // c1, c2: bias corrections 1 - beta^step
};

__device__ __forceinline__ void AdamWOne(float& p, float g, float& m, float& v, const AdamWScalars& a) {
  model::adamw_update_one(&p, &m, &v, g, a.lr, a.beta1, a.beta2, a.eps, a.wd, a.c1, a.c2);
}

// ---- kernels ------------------------------------------------------------------------------

// The grid-stride loops of the pointwise kernels, over float4 with a scalar tail: y = op(x)
// and z = op(x, y), element by element over n.
template <typename Op>
__device__ __forceinline__ void Pointwise(float* __restrict__ y, const float* __restrict__ x, int64_t n,
                                          Op op) {
  const int64_t n4 = n / 4;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride) {
    const float4 v = x4[i];
    y4[i] = make_float4(op(v.x), op(v.y), op(v.z), op(v.w));
  }
  for (int64_t i = 4 * n4 + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = op(x[i]);
  }
}

template <typename Op>
__device__ __forceinline__ void Pointwise(float* __restrict__ z, const float* __restrict__ x,
                                          const float* __restrict__ y, int64_t n, Op op) {
  const int64_t n4 = n / 4;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float4* y4 = reinterpret_cast<const float4*>(y);
  float4* z4 = reinterpret_cast<float4*>(z);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride) {
    const float4 a = x4[i], b = y4[i];
    z4[i] = make_float4(op(a.x, b.x), op(a.y, b.y), op(a.z, b.z), op(a.w, b.w));
  }
  for (int64_t i = 4 * n4 + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    z[i] = op(x[i], y[i]);
  }
}

// x, y: (n,). y = s x.
__global__ void ScaleKernel(float* __restrict__ y, const float* __restrict__ x, float s, int64_t n) {
  Pointwise(y, x, n, [s](float v) { return s * v; });
}

// x, y, z: (n,). z = x + y.
__global__ void AddKernel(float* __restrict__ z, const float* __restrict__ x, const float* __restrict__ y,
                          int64_t n) {
  Pointwise(z, x, y, n, [](float a, float b) { return a + b; });
}

// a, b, c: (n,). a = b + s c.
__global__ void TriadKernel(float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                            float s, int64_t n) {
  Pointwise(a, b, c, n, [s](float u, float v) { return u + s * v; });
}

// x, y: (n,). y = gelu(x), tanh form.
__global__ void GeluKernel(float* __restrict__ y, const float* __restrict__ x, int64_t n) {
  Pointwise(y, x, n, [](float v) { return GeluTanhDevice(v); });
}

// p, g, m, v: (n,). One AdamW step in place on p, m, v.
__global__ void AdamWKernel(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                            float* __restrict__ v, AdamWScalars a, int64_t n) {
  const int64_t n4 = n / 4;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  float4* p4 = reinterpret_cast<float4*>(p);
  const float4* g4 = reinterpret_cast<const float4*>(g);
  float4* m4 = reinterpret_cast<float4*>(m);
  float4* v4 = reinterpret_cast<float4*>(v);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n4; i += stride) {
    float4 pp = p4[i], gg = g4[i], mm = m4[i], vv = v4[i];
    AdamWOne(pp.x, gg.x, mm.x, vv.x, a);
    AdamWOne(pp.y, gg.y, mm.y, vv.y, a);
    AdamWOne(pp.z, gg.z, mm.z, vv.z, a);
    AdamWOne(pp.w, gg.w, mm.w, vv.w, a);
    p4[i] = pp;
    m4[i] = mm;
    v4[i] = vv;
  }
  for (int64_t i = 4 * n4 + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    AdamWOne(p[i], g[i], m[i], v[i], a);
  }
}

// x, y: (rows, C); w, b: (C); mean, rstd: (rows). One warp per row, two passes over x for the
// statistics (the row stays in L1/L2), one for the output.
__global__ void LayerNormKernel(float* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd,
                                const float* __restrict__ x, const float* __restrict__ w,
                                const float* __restrict__ b, int64_t rows, int C, float eps) {
  const int lane = threadIdx.x % 32;
  const int64_t row = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32;
  if (row >= rows) return;
  const int c4 = C / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x + row * C);
  float sum = 0;
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  const float mu = WarpSum(sum) / C;
  float ss = 0;
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i];
    ss +=
        (v.x - mu) * (v.x - mu) + (v.y - mu) * (v.y - mu) + (v.z - mu) * (v.z - mu) + (v.w - mu) * (v.w - mu);
  }
  const float rs = rsqrtf(WarpSum(ss) / C + eps);
  const float4* w4 = reinterpret_cast<const float4*>(w);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* y4 = reinterpret_cast<float4*>(y + row * C);
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i], ww = w4[i], bb = b4[i];
    y4[i] = make_float4((v.x - mu) * rs * ww.x + bb.x, (v.y - mu) * rs * ww.y + bb.y,
                        (v.z - mu) * rs * ww.z + bb.z, (v.w - mu) * rs * ww.w + bb.w);
  }
  if (lane == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
}

// x, y: (rows, C). y = softmax over each row. One warp per row: max, sum of exp, write.
__global__ void SoftmaxKernel(float* __restrict__ y, const float* __restrict__ x, int64_t rows, int C) {
  const int lane = threadIdx.x % 32;
  const int64_t row = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32;
  if (row >= rows) return;
  const int c4 = C / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x + row * C);
  float mx = -INFINITY;
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i];
    mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  mx = WarpMax(mx);
  float sum = 0;
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i];
    sum += (expf(v.x - mx) + expf(v.y - mx)) + (expf(v.z - mx) + expf(v.w - mx));
  }
  const float inv = 1.0f / WarpSum(sum);
  float4* y4 = reinterpret_cast<float4*>(y + row * C);
  for (int i = lane; i < c4; i += 32) {
    float4 v = x4[i];
    y4[i] =
        make_float4(expf(v.x - mx) * inv, expf(v.y - mx) * inv, expf(v.z - mx) * inv, expf(v.w - mx) * inv);
  }
}

// ---- launchers ----------------------------------------------------------------------------

constexpr int kBlock = 256;

// Grid for a grid-stride loop over `items`: enough blocks to fill every SM several times,
// no more than the items need.
int PointwiseGrid(int64_t items, int sm_count) {
  const int64_t needed = (items + kBlock - 1) / kBlock;
  const int64_t cap = static_cast<int64_t>(sm_count > 0 ? sm_count : 132) * 16;
  return static_cast<int>(needed < 1 ? 1 : (needed < cap ? needed : cap));
}

std::string LaunchElementwise(const ElementwiseProblem& p, const ElementwiseTensors& t, int sm_count,
                              cudaStream_t stream) {
  const int64_t n = p.n;
  const int grid = PointwiseGrid((n + 3) / 4, sm_count);
  switch (p.op) {
    case ElementwiseOp::kScale:
      ScaleKernel<<<grid, kBlock, 0, stream>>>(t.big[1], t.big[0], kScaleFactor, n);
      break;
    case ElementwiseOp::kAdd: AddKernel<<<grid, kBlock, 0, stream>>>(t.big[2], t.big[0], t.big[1], n); break;
    case ElementwiseOp::kTriad:
      TriadKernel<<<grid, kBlock, 0, stream>>>(t.big[2], t.big[0], t.big[1], kTriadScalar, n);
      break;
    case ElementwiseOp::kGelu: GeluKernel<<<grid, kBlock, 0, stream>>>(t.big[1], t.big[0], n); break;
    case ElementwiseOp::kAdamW: {
      const AdamWParams a;
      AdamWScalars s{a.lr,
                     a.beta1,
                     a.beta2,
                     a.eps,
                     a.weight_decay,
                     1.0f - std::pow(a.beta1, static_cast<float>(a.step)),
                     1.0f - std::pow(a.beta2, static_cast<float>(a.step))};
      AdamWKernel<<<grid, kBlock, 0, stream>>>(t.big[0], t.big[1], t.big[2], t.big[3], s, n);
      break;
    }
    case ElementwiseOp::kLayerNorm:
    case ElementwiseOp::kSoftmax: {
      if (p.row % 4 != 0 || p.row <= 0) {
        return "row length C = " + std::to_string(p.row) + " must be a positive multiple of 4";
      }
      const int64_t rows = p.rows();
      const int64_t warps_per_block = kBlock / 32;
      const int row_grid = static_cast<int>((rows + warps_per_block - 1) / warps_per_block);
      if (p.op == ElementwiseOp::kLayerNorm) {
        LayerNormKernel<<<row_grid, kBlock, 0, stream>>>(t.big[1], t.small[2], t.small[3], t.big[0],
                                                         t.small[0], t.small[1], rows,
                                                         static_cast<int>(p.row), kLayerNormEps);
      } else {
        SoftmaxKernel<<<row_grid, kBlock, 0, stream>>>(t.big[1], t.big[0], rows, static_cast<int>(p.row));
      }
      break;
    }
  }
  MICRO_RETURN_IF_ERROR(cudaGetLastError());
  return "";
}

// CudaElementwise on the CUDA runtime: the op's arrays on its own stream.
struct DeviceElementwise final : CudaElementwise {
  ElementwiseProblem p;
  int sm_count = 0;
  cudaStream_t stream = nullptr;
  DeviceBuffer big[4], small[4];
  L2Flusher flusher;
  EventTimer timer;

  ~DeviceElementwise() override {
    if (stream != nullptr) CUDA_CHECK(cudaStreamDestroy(stream));
  }

  ElementwiseTensors Tensors() const {
    ElementwiseTensors t;
    for (int i = 0; i < 4; ++i) {
      t.big[i] = big[i].as<float>();
      t.small[i] = small[i].as<float>();
    }
    return t;
  }

  std::string RunOnce() override;
  std::string Download(const ElementwiseTensors& out) override;
  std::string TimeOnce(double* seconds) override;
};

}  // namespace

std::unique_ptr<CudaElementwise> CudaElementwise::Create(const ElementwiseProblem& p, std::string* error) {
  auto fail = [&](const std::string& e) {
    *error = e;
    return std::unique_ptr<CudaElementwise>();
  };
  if (p.n < 1) return fail("elementwise n = " + std::to_string(p.n) + "; need >= 1");
  auto op = std::make_unique<DeviceElementwise>();
  op->p = p;
  const ElementwiseOpInfo& info = OpInfo(p.op);
  size_t bytes = static_cast<size_t>(info.big_arrays) * p.n * sizeof(float);
  for (int i = 0; i < SmallArrayCount(p); ++i) bytes += SmallArrayLength(p, i) * sizeof(float);
  std::string e = CheckDeviceMemory(bytes, std::string("the arrays of ") + info.name);
  if (!e.empty()) return fail(e);
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&op->sm_count, cudaDevAttrMultiProcessorCount, dev);
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&op->stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) return fail(ErrorMessage("device setup", err, __FILE__, __LINE__));
  for (int i = 0; i < info.big_arrays && e.empty(); ++i) {
    e = op->big[i].Allocate(p.n * sizeof(float));
    if (e.empty())
      e = FillHash<float>(op->big[i].as<float>(), p.n, BigArraySeed(i), info.positive[i], op->stream);
  }
  for (int i = 0; i < SmallArrayCount(p) && e.empty(); ++i) {
    const int64_t len = SmallArrayLength(p, i);
    e = op->small[i].Allocate(len * sizeof(float));
    if (e.empty()) e = FillHash<float>(op->small[i].as<float>(), len, SmallArraySeed(i), false, op->stream);
  }
  if (e.empty()) e = op->flusher.Init();
  if (e.empty()) e = op->timer.Init();
  if (e.empty()) {
    err = cudaStreamSynchronize(op->stream);
    if (err != cudaSuccess) e = ErrorMessage("cudaStreamSynchronize", err, __FILE__, __LINE__);
  }
  if (!e.empty()) return fail(e);
  return op;
}

std::string DeviceElementwise::RunOnce() {
  std::string e = LaunchElementwise(p, Tensors(), sm_count, stream);
  if (!e.empty()) return e;
  MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return "";
}

std::string DeviceElementwise::Download(const ElementwiseTensors& out) {
  const ElementwiseOpInfo& info = OpInfo(p.op);
  for (int i = 0; i < info.big_arrays; ++i) {
    MICRO_RETURN_IF_ERROR(
        cudaMemcpyAsync(out.big[i], big[i].get(), p.n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  }
  for (int i = 0; i < SmallArrayCount(p); ++i) {
    MICRO_RETURN_IF_ERROR(cudaMemcpyAsync(out.small[i], small[i].get(),
                                          SmallArrayLength(p, i) * sizeof(float), cudaMemcpyDeviceToHost,
                                          stream));
  }
  MICRO_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return "";
}

std::string DeviceElementwise::TimeOnce(double* seconds) {
  return timer.Time(
      stream, &flusher, [&] { return LaunchElementwise(p, Tensors(), sm_count, stream); }, seconds);
}

}  // namespace micro
