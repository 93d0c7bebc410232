// oneDNN matmul primitives, cached by shape (onednn_gemm.h).
#include "model/onednn_gemm.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace model {
namespace {

using dnnl::memory;

struct ShapeHash {
  size_t operator()(const OneDnnGemmShape& s) const {
    size_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(s.trans_a);
    mix(s.trans_b);
    mix(static_cast<uint64_t>(s.M));
    mix(static_cast<uint64_t>(s.N));
    mix(static_cast<uint64_t>(s.K));
    mix(static_cast<uint64_t>(s.lda));
    mix(static_cast<uint64_t>(s.ldb));
    mix(static_cast<uint64_t>(s.ldc));
    uint32_t a, b;
    static_assert(sizeof(float) == 4, "float is 32 bits");
    std::memcpy(&a, &s.alpha, 4);
    std::memcpy(&b, &s.beta, 4);
    mix(a);
    mix(b);
    mix(s.bias);
    mix(s.bf16);
    for (int i = 0; i < 2; ++i) {
      mix(static_cast<uint64_t>(s.batch[i]));
      mix(static_cast<uint64_t>(s.a_stride[i]));
      mix(static_cast<uint64_t>(s.b_stride[i]));
      mix(static_cast<uint64_t>(s.c_stride[i]));
    }
    return h;
  }
};

struct Entry {
  dnnl::matmul primitive;
  memory::desc a, b, c, bias, scratchpad;
  size_t scratchpad_bytes = 0;
  std::string impl;
};

[[noreturn]] void Die(const OneDnnGemmShape& s, const dnnl::error& e) {
  std::fprintf(stderr,
               "oneDNN matmul failed for M=%lld N=%lld K=%lld trans_a=%d trans_b=%d lda=%lld "
               "ldb=%lld ldc=%lld: %s (status %d)\n",
               static_cast<long long>(s.M), static_cast<long long>(s.N), static_cast<long long>(s.K),
               s.trans_a, s.trans_b, static_cast<long long>(s.lda), static_cast<long long>(s.ldb),
               static_cast<long long>(s.ldc), e.what(), static_cast<int>(e.status));
  std::abort();
}

const dnnl::engine& Engine() {
  static const dnnl::engine* eng = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *eng;
}

class Cache {
 public:
  const Entry& Get(const OneDnnGemmShape& s) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(s);
    if (it != map_.end()) return *it->second;
    auto e = std::make_unique<Entry>(Create(s));
    const Entry& ref = *e;
    map_.emplace(s, std::move(e));
    return ref;
  }
  int64_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(map_.size());
  }

 private:
  static Entry Create(const OneDnnGemmShape& s) {
    try {
      Entry e;
      const auto f32 = memory::data_type::f32;
      const auto in = s.bf16 ? memory::data_type::bf16 : f32;
      // Row-major A (M, K): element (m, k) at m*lda + k, or k*lda + m when stored transposed.
      const memory::dims a2 = s.trans_a ? memory::dims{1, s.lda} : memory::dims{s.lda, 1};
      const memory::dims b2 = s.trans_b ? memory::dims{1, s.ldb} : memory::dims{s.ldb, 1};
      const memory::dims c2 = {s.ldc, 1};
      if (s.batched()) {
        // (batch0, batch1, rows, cols) with each operand's batch strides in front.
        const int64_t b0 = s.batch[0], b1 = s.batch[1];
        e.a = memory::desc({b0, b1, s.M, s.K}, in, {s.a_stride[0], s.a_stride[1], a2[0], a2[1]});
        e.b = memory::desc({b0, b1, s.K, s.N}, in, {s.b_stride[0], s.b_stride[1], b2[0], b2[1]});
        e.c = memory::desc({b0, b1, s.M, s.N}, f32, {s.c_stride[0], s.c_stride[1], c2[0], c2[1]});
      } else {
        e.a = memory::desc({s.M, s.K}, in, a2);
        e.b = memory::desc({s.K, s.N}, in, b2);
        e.c = memory::desc({s.M, s.N}, f32, c2);
      }
      if (s.bias) e.bias = memory::desc({1, s.N}, f32, memory::dims{s.N, 1});
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      if (s.alpha != 1.0f) attr.set_output_scales(0, {s.alpha});
      if (s.beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(s.beta);
        attr.set_post_ops(ops);
      }
      const dnnl::matmul::desc d =
          s.bias ? dnnl::matmul::desc(e.a, e.b, e.bias, e.c) : dnnl::matmul::desc(e.a, e.b, e.c);
      const dnnl::matmul::primitive_desc pd(d, attr, Engine());
      e.scratchpad = pd.scratchpad_desc();
      e.scratchpad_bytes = e.scratchpad.get_size();
      e.impl = pd.impl_info_str();
      e.primitive = dnnl::matmul(pd);
      return e;
    } catch (const dnnl::error& err) {
      Die(s, err);
    }
  }

  std::mutex mu_;
  std::unordered_map<OneDnnGemmShape, std::unique_ptr<Entry>, ShapeHash> map_;
};

Cache& TheCache() {
  static Cache* c = new Cache();
  return *c;
}

// This thread's scratchpad, grown to the largest size asked for (64-byte aligned).
char* Scratchpad(size_t bytes) {
  struct Buffer {
    std::unique_ptr<char, void (*)(void*)> p{nullptr, std::free};
    size_t size = 0;
  };
  thread_local Buffer buf;
  if (bytes > buf.size) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    buf.p.reset(static_cast<char*>(std::aligned_alloc(64, rounded)));
    if (buf.p == nullptr) {
      std::fprintf(stderr, "out of memory allocating a %zu-byte oneDNN scratchpad\n", rounded);
      std::abort();
    }
    buf.size = rounded;
  }
  return buf.p.get();
}

}  // namespace

bool OneDnnGemmShape::operator==(const OneDnnGemmShape& o) const {
  for (int i = 0; i < 2; ++i) {
    if (batch[i] != o.batch[i] || a_stride[i] != o.a_stride[i] || b_stride[i] != o.b_stride[i] ||
        c_stride[i] != o.c_stride[i]) {
      return false;
    }
  }
  return trans_a == o.trans_a && trans_b == o.trans_b && M == o.M && N == o.N && K == o.K && lda == o.lda &&
         ldb == o.ldb && ldc == o.ldc && alpha == o.alpha && beta == o.beta && bias == o.bias && bf16 == o.bf16;
}

OneDnnGemmShape PackedGemmShape(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K) {
  // lda, ldb, ldc: the stored row lengths of op(A), op(B) and C.
  return OneDnnGemmShape{trans_a, trans_b, M, N, K, trans_a ? M : K, trans_b ? K : N, N};
}

namespace {

void Execute(const OneDnnGemmShape& s, const void* A, const void* B, const float* bias, float* C) {
  if (s.M == 0 || s.N == 0) return;
  const Entry& e = TheCache().Get(s);
  try {
    const dnnl::engine& eng = Engine();
    thread_local dnnl::stream stream(eng);
    memory a(e.a, eng, const_cast<void*>(A));
    memory b(e.b, eng, const_cast<void*>(B));
    memory c(e.c, eng, C);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    if (s.bias) args.emplace(DNNL_ARG_BIAS, memory(e.bias, eng, const_cast<float*>(bias)));
    if (e.scratchpad_bytes > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD, memory(e.scratchpad, eng, Scratchpad(e.scratchpad_bytes)));
    }
    e.primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& err) {
    Die(s, err);
  }
}

}  // namespace

void OneDnnSgemm(const OneDnnGemmShape& s, const float* A, const float* B, const float* bias, float* C) {
  if (s.bf16) {
    std::fprintf(stderr, "OneDnnSgemm called with a bf16 shape (use OneDnnGemmBf16)\n");
    std::abort();
  }
  Execute(s, A, B, bias, C);
}

void OneDnnGemmBf16(const OneDnnGemmShape& s, const uint16_t* A, const uint16_t* B, const float* bias, float* C) {
  if (!s.bf16) {
    std::fprintf(stderr, "OneDnnGemmBf16 called with an fp32 shape (set OneDnnGemmShape::bf16)\n");
    std::abort();
  }
  Execute(s, A, B, bias, C);
}

void OneDnnBlasSgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                     int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb,
                                      beta, C, ldc);
  if (st != dnnl_success) {
    std::fprintf(stderr,
                 "oneDNN dnnl_sgemm failed for M=%lld N=%lld K=%lld trans_a=%d trans_b=%d lda=%lld ldb=%lld "
                 "ldc=%lld: status %d\n",
                 static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), trans_a,
                 trans_b, static_cast<long long>(lda), static_cast<long long>(ldb), static_cast<long long>(ldc),
                 static_cast<int>(st));
    std::abort();
  }
}

absl::StatusOr<std::string> OneDnnBf16Implementation() {
  // A Linear layer's forward shape; creating the primitive descriptor is all that is tried.
  try {
    using dnnl::memory;
    const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    const memory::desc a({64, 256}, memory::data_type::bf16, memory::dims{256, 1});
    const memory::desc b({256, 256}, memory::data_type::bf16, memory::dims{1, 256});
    const memory::desc c({64, 256}, memory::data_type::f32, memory::dims{256, 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), eng);
    return std::string(pd.impl_info_str());
  } catch (const dnnl::error& e) {
    return absl::FailedPreconditionError(
        absl::StrCat("oneDNN cannot run a bf16 matmul here (", e.what(),
                     "): it needs AVX-512 (bf16 units: AVX512-BF16 or AMX), and ONEDNN_MAX_CPU_ISA, when set, "
                     "must allow it"));
  }
}

bool IsEmulatedBf16(const std::string& impl) {
  return impl.find("bf16") == std::string::npos;  // brg:avx512_core_bf16, brg:avx512_core_amx_bf16, ...
}

std::string OneDnnImplName(const OneDnnGemmShape& s) { return TheCache().Get(s).impl; }

int64_t OneDnnCachedPrimitives() { return TheCache().size(); }

}  // namespace model
