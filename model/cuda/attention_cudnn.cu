// CudnnAttention on cudnn-frontend's graph API (the model: llm.c's cudnn_att.cpp): the library
// opened at run time, one handle and two graphs per shape, every failure an absl::Status.
// No kernels here: nvcc drives the host compiler alone over it (host_srcs in BUILD.bazel), so that
// the CUDA headers stay out of the host build.
#define NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING 1

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cudnn_frontend.h>

#include "absl/strings/str_cat.h"
#include "model/cuda/attention_cudnn.h"
#include "model/cuda/model_stream.cuh"

static_assert(CUDNN_MAJOR == 9, "attention_cudnn.cu opens libcudnn.so.9: update kLibrary for this cuDNN");
// cudnn-frontend 1.19's shim opens "libcudart.so.13" and only that (load_cudart_so); built against
// another CUDA major, its validate() would fail to load the runtime and --attention_impl=auto
// would fall back to the kernels. Fail the build instead, naming the cause.
static_assert(CUDART_VERSION / 1000 == 13,
              "cudnn-frontend 1.19 loads libcudart.so.13 only (cudnn_frontend_shim.h); this build's CUDA "
              "runtime has another major: pin a frontend whose shim opens it");

// The frontend's dynamic loading reads cuDNN's symbols from this handle (ProbeCudnn sets it).
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace model {
namespace cuda {

namespace fe = cudnn_frontend;

namespace {

constexpr char kLibrary[] = "libcudnn.so.9";

// Tensor ids in the variant packs.
enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;
using GraphPtr = std::shared_ptr<fe::graph::Graph>;

CudnnStatus LoadCudnn() {
  CudnnStatus s;
  // The frontend's dynamic loading opens the CUDA runtime itself, by one fixed name that no
  // environment variable changes (cudnn_frontend_shim.h: load_cudart_so). The static_assert on
  // kFrontendCudart below keeps that name and the runtime we build against in step.
  dlerror();
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    s.reason = absl::StrCat("cannot open ", kLibrary, ": ", why != nullptr ? why : "unknown error",
                            " (put cuDNN 9's lib folder on LD_LIBRARY_PATH)");
    return s;
  }
  using GetVersion = size_t (*)();
  auto get_version = reinterpret_cast<GetVersion>(dlsym(lib, "cudnnGetVersion"));
  if (get_version == nullptr) {
    s.reason = absl::StrCat(kLibrary, " has no cudnnGetVersion");
    dlclose(lib);
    return s;
  }
  fe::cudnn_dlhandle = lib;
  s.loaded = true;
  s.version = static_cast<int64_t>(get_version());
  return s;
}

std::vector<int64_t> HeadDims(const AttentionShape& s) { return {s.B, s.NH, s.T, s.HS}; }
// K and V (and dK, dV) have the K/V heads: cuDNN's grouped-query attention maps query head h to
// K/V head h / (NH / NKV), as the kernels and the CPU model do.
std::vector<int64_t> KvHeadDims(const AttentionShape& s) { return {s.B, s.kv_heads(), s.T, s.HS}; }
// (B, heads, T, HS) views of q, k or v inside qkv (B, T, QKV) = q | k | v, and of dq, dk, dv in
// dqkv: a head is HS columns on, a position a row of QKV on (3C: (B, T, 3, NH, HS)).
std::vector<int64_t> QkvStrides(const AttentionShape& s) { return {s.T * s.QKV(), s.HS, s.QKV(), 1}; }
// (B, NH, T, HS) view of out or dout (B, T, NH, HS).
std::vector<int64_t> OutStrides(const AttentionShape& s) { return {s.T * s.C(), s.HS, s.C(), 1}; }
std::vector<int64_t> StatsDims(const AttentionShape& s) { return {s.B, s.NH, s.T, 1}; }
std::vector<int64_t> StatsStrides(const AttentionShape& s) { return {s.NH * s.T, s.T, 1, 1}; }

GraphPtr NewGraph() {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return g;
}

TensorPtr Input(fe::graph::Graph& g, const char* name, Uid uid, std::vector<int64_t> dims,
                std::vector<int64_t> strides) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim(std::move(dims))
                      .set_stride(std::move(strides)));
}

void Output(const TensorPtr& t, Uid uid, std::vector<int64_t> dims, std::vector<int64_t> strides) {
  t->set_output(true).set_uid(uid).set_dim(std::move(dims)).set_stride(std::move(strides));
}

std::string Where(const AttentionShape& s, const char* what) {
  return absl::StrCat("cuDNN attention at ", s.ToString(), " (bf16, causal): ", what);
}

absl::Status FromFe(fe::error_t e, const AttentionShape& s, const char* what) {
  if (e.is_good()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(Where(s, what), ": ", e.get_message()));
}

// validate, then the operation graph, heuristics (mode A), support check and plans: the slow
// part, done once per graph.
absl::Status Build(fe::graph::Graph& g, cudnnHandle_t handle, const AttentionShape& s) {
  if (auto st = FromFe(g.validate(), s, "validate"); !st.ok()) return st;
  if (auto st = FromFe(g.build_operation_graph(handle), s, "build_operation_graph"); !st.ok()) return st;
  if (auto st = FromFe(g.create_execution_plans({fe::HeurMode_t::A}), s, "create_execution_plans"); !st.ok())
    return st;
  if (auto st = FromFe(g.check_support(handle), s, "check_support"); !st.ok()) return st;
  return FromFe(g.build_plans(handle), s, "build_plans");
}

float AttnScale(const AttentionShape& s) { return 1.0f / std::sqrt(static_cast<float>(s.HS)); }

// Training forward: O and the softmax statistics.
absl::StatusOr<GraphPtr> ForwardGraph(cudnnHandle_t handle, const AttentionShape& s) {
  GraphPtr g = NewGraph();
  TensorPtr q = Input(*g, "Q", kQ, HeadDims(s), QkvStrides(s));
  TensorPtr k = Input(*g, "K", kK, KvHeadDims(s), QkvStrides(s));
  TensorPtr v = Input(*g, "V", kV, KvHeadDims(s), QkvStrides(s));
  auto options = fe::graph::SDPA_attributes()
                     .set_name("flash_attention")
                     .set_generate_stats(true)
                     .set_causal_mask(true)
                     .set_attn_scale(AttnScale(s));
  auto [o, stats] = g->sdpa(q, k, v, options);
  Output(o, kO, HeadDims(s), OutStrides(s));
  if (stats == nullptr) return absl::InternalError(Where(s, "sdpa returned no statistics tensor"));
  Output(stats, kStats, StatsDims(s), StatsStrides(s));
  stats->set_data_type(fe::DataType_t::FLOAT);
  if (auto st = Build(*g, handle, s); !st.ok()) return st;
  return g;
}

// Backward: dq, dk, dv from q, k, v, o, do and the statistics (deterministic algorithm, as llm.c).
absl::StatusOr<GraphPtr> BackwardGraph(cudnnHandle_t handle, const AttentionShape& s) {
  GraphPtr g = NewGraph();
  TensorPtr q = Input(*g, "Q", kQ, HeadDims(s), QkvStrides(s));
  TensorPtr k = Input(*g, "K", kK, KvHeadDims(s), QkvStrides(s));
  TensorPtr v = Input(*g, "V", kV, KvHeadDims(s), QkvStrides(s));
  TensorPtr o = Input(*g, "O", kO, HeadDims(s), OutStrides(s));
  TensorPtr dO = Input(*g, "dO", kDO, HeadDims(s), OutStrides(s));
  TensorPtr stats = Input(*g, "stats", kStats, StatsDims(s), StatsStrides(s));
  stats->set_data_type(fe::DataType_t::FLOAT);
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("flash_attention_backward")
                     .set_deterministic_algorithm(true)
                     .set_causal_mask(true)
                     .set_attn_scale(AttnScale(s));
  auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dO, stats, options);
  Output(dq, kDQ, HeadDims(s), QkvStrides(s));
  Output(dk, kDK, KvHeadDims(s), QkvStrides(s));
  Output(dv, kDV, KvHeadDims(s), QkvStrides(s));
  if (auto st = Build(*g, handle, s); !st.ok()) return st;
  return g;
}

// Runs f, turning any exception the frontend throws (its dynamic loading throws when a symbol
// is missing) into an Internal status.
template <typename F>
auto Guarded(const AttentionShape& s, const char* what, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(Where(s, what), ": ", e.what()));
  }
}

}  // namespace

struct CudnnAttention::Impl {
  AttentionShape shape;
  cudnnHandle_t handle = nullptr;
  GraphPtr forward, backward;
  int64_t workspace = 0;

  ~Impl() {
    if (handle == nullptr) return;
    try {
      (void)fe::detail::destroy_handle(handle);
    } catch (const std::exception&) {
      // Nothing to report to: the handle is gone with the process either way.
    }
  }
};

CudnnStatus ProbeCudnn() {
  static const CudnnStatus status = LoadCudnn();
  return status;
}

CudnnAttention::CudnnAttention(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
CudnnAttention::~CudnnAttention() = default;

const AttentionShape& CudnnAttention::shape() const { return impl_->shape; }
int64_t CudnnAttention::workspace_bytes() const { return impl_->workspace; }

namespace {

// The handle and both graphs for one shape on the current device, built now.
absl::StatusOr<std::shared_ptr<const CudnnAttention::Impl>> BuildImpl(const AttentionShape& s) {
  auto impl = std::make_shared<CudnnAttention::Impl>();
  impl->shape = s;
  absl::Status st = Guarded(s, "building the graphs", [&]() -> absl::Status {
    const cudnnStatus_t created = fe::detail::create_handle(&impl->handle);
    if (created != CUDNN_STATUS_SUCCESS) {
      impl->handle = nullptr;
      return absl::UnavailableError(
          absl::StrCat(Where(s, "cudnnCreate"), ": ", fe::detail::get_error_string(created)));
    }
    // The model's stream (model_stream.cuh), not the legacy one: cuDNN's kernels queue in order
    // with the model's, and a --cuda_graph capture records them with the rest of the step.
    if (const cudnnStatus_t set = fe::detail::set_stream(impl->handle, ModelStream());
        set != CUDNN_STATUS_SUCCESS) {
      return absl::UnavailableError(
          absl::StrCat(Where(s, "cudnnSetStream"), ": ", fe::detail::get_error_string(set)));
    }
    absl::StatusOr<GraphPtr> fwd = ForwardGraph(impl->handle, s);
    if (!fwd.ok()) return fwd.status();
    absl::StatusOr<GraphPtr> bwd = BackwardGraph(impl->handle, s);
    if (!bwd.ok()) return bwd.status();
    impl->forward = *std::move(fwd);
    impl->backward = *std::move(bwd);
    // The erroring overload: the plain one returns 0 on a failed query and only logs it, and the
    // arena would then reserve no workspace for cuDNN.
    int64_t forward_ws = 0, backward_ws = 0;
    if (auto e = FromFe(impl->forward->get_workspace_size(forward_ws), s, "forward get_workspace_size");
        !e.ok()) {
      return e;
    }
    if (auto e = FromFe(impl->backward->get_workspace_size(backward_ws), s, "backward get_workspace_size");
        !e.ok()) {
      return e;
    }
    impl->workspace = std::max(forward_ws, backward_ws);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return std::shared_ptr<const CudnnAttention::Impl>(std::move(impl));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudnnAttention>> CudnnAttention::Create(const AttentionShape& s) {
  if (s.B < 1 || s.T < 1 || s.NH < 1 || s.HS < 1 || s.NKV < 0 || s.NH % s.kv_heads() != 0) {
    return absl::InvalidArgumentError(Where(s, "every dimension must be >= 1 and NKV must divide NH"));
  }
  const CudnnStatus probe = ProbeCudnn();
  if (!probe.loaded) return absl::UnavailableError(Where(s, probe.reason.c_str()));
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    return absl::UnavailableError(absl::StrCat(Where(s, "cudaGetDevice"), ": ", cudaGetErrorString(e)));
  }
  // Graphs cached per process, device and shape (llm.c caches per shape too): built once.
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t>;
  static std::mutex mu;
  static auto* cache = new std::map<Key, std::shared_ptr<const Impl>>();  // never destroyed
  const Key key{device, s.B, s.T, s.NH, s.HS, s.kv_heads()};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it == cache->end()) {
    absl::StatusOr<std::shared_ptr<const Impl>> built = BuildImpl(s);
    if (!built.ok()) return built.status();
    it = cache->emplace(key, *std::move(built)).first;
  }
  return std::unique_ptr<CudnnAttention>(new CudnnAttention(it->second));
}

absl::Status CudnnAttention::Forward(Bf16* out, float* stats, const Bf16* qkv, void* workspace) {
  const AttentionShape& s = impl_->shape;
  Bf16* base = const_cast<Bf16*>(qkv);  // cuDNN's pointers are not const; it only reads q, k, v
  std::unordered_map<int64_t, void*> pack = {
      {kQ, base}, {kK, base + s.C()}, {kV, base + s.C() + s.KVW()}, {kO, out}, {kStats, stats}};
  absl::Status st = Guarded(s, "forward", [&]() -> absl::Status {
    return FromFe(impl_->forward->execute(impl_->handle, pack, workspace), s, "forward execute");
  });
  if (st.ok()) CountCudnnAttentionForwardFlops(s);
  return st;
}

absl::Status CudnnAttention::Backward(Bf16* dqkv, const Bf16* dout, const Bf16* qkv, const Bf16* out,
                                      const float* stats, void* workspace) {
  const AttentionShape& s = impl_->shape;
  Bf16* base = const_cast<Bf16*>(qkv);  // read-only inputs, as in Forward
  std::unordered_map<int64_t, void*> pack = {{kQ, base},
                                             {kK, base + s.C()},
                                             {kV, base + s.C() + s.KVW()},
                                             {kO, const_cast<Bf16*>(out)},
                                             {kDO, const_cast<Bf16*>(dout)},
                                             {kStats, const_cast<float*>(stats)},
                                             {kDQ, dqkv},
                                             {kDK, dqkv + s.C()},
                                             {kDV, dqkv + s.C() + s.KVW()}};
  absl::Status st = Guarded(s, "backward", [&]() -> absl::Status {
    return FromFe(impl_->backward->execute(impl_->handle, pack, workspace), s, "backward execute");
  });
  if (st.ok()) CountCudnnAttentionBackwardFlops(s);
  return st;
}

}  // namespace cuda
}  // namespace model
