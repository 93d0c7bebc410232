// The CUDA decoder against the CPU training model's full forward: at the prompt and at every
// decode step, the logits equal a full forward over the prefix (fp32: max relative error 1e-4;
// bf16: relative L2 error 3e-2, the CUDA model's own tolerances); the cache kernel against its
// CPU twin; misuse refused; the Llama family (RMSNorm, RoPE at each position, SwiGLU, a cache of
// the K/V heads) as GPT-2. Built twice: kv_decoder_emu_test (the kernel emulator with the
// reference GEMM, test-tiny and llama-tiny) and kv_decoder_cuda_test (the GPU with cuBLASLt,
// test-mini and a Llama of its size; skipped without a device).
#include "model/cuda/kv_decoder_cuda.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/cpu_gpt.h"
#include "model/cuda/kv_attention_cuda.h"
#include "model/cuda/test_backend.h"
#include "model/data/rng.h"
#include "model/full_forward_logits.h"
#include "model/kv_attention_cpu.h"
#include "model/param_init.h"
#include "model/param_layout.h"
#include "model/threads.h"

namespace model {
namespace cuda {
namespace {

using test::MaxRelErr;
using test::NormRelErr;

// The CPU reference runs single-threaded (see cuda_gpt_test.cc: spin-waits on a loaded machine).
const bool kOneCpuThread = [] {
  SetNumThreads(1);
  return true;
}();

struct DecodeSetup {
  GptConfig config;
  int B, P, G;
};

DecodeSetup SmallSetup() {
  if (test::IsEmulated()) return DecodeSetup{*GptPreset("test-tiny"), 2, 3, 4};
  return DecodeSetup{*GptPreset("test-mini"), 3, 24, 16};
}

// llama-tiny (H4, KV2) in the emulator; on a GPU a Llama of test-mini's size with four query
// heads per K/V head.
DecodeSetup LlamaSetup() {
  GptConfig c = *GptPreset("llama-tiny");
  if (test::IsEmulated()) return DecodeSetup{c, 2, 3, 5};
  c.layers = 4, c.width = 256, c.heads = 8, c.kv_heads = 2, c.mlp_hidden = 688;
  c.vocab = 1000, c.padded_vocab = 1024, c.block = 256;
  return DecodeSetup{c, 3, 24, 16};
}

std::vector<float> Params(const GptConfig& c, uint64_t seed) {
  const ParamLayout layout(c);
  std::vector<float> p(layout.num_params());
  InitParams(c, layout, seed, p.data());
  return p;
}

std::vector<float> DropPadding(const std::vector<float>& logits, const GptConfig& c, int B) {
  std::vector<float> out;
  for (int b = 0; b < B; ++b) {
    out.insert(out.end(), logits.begin() + static_cast<int64_t>(b) * c.padded_vocab,
               logits.begin() + static_cast<int64_t>(b) * c.padded_vocab + c.vocab);
  }
  return out;
}

void DecodeMatchesFullForward(CudaPrecision precision, const DecodeSetup& s) {
  SKIP_WITHOUT_DEVICE();
  SCOPED_TRACE(DescribeConfig(s.config));
  const GptConfig& c = s.config;
  const std::vector<float> params = Params(c, 7);
  const int T = s.P + s.G;
  Rng rng(5);
  std::vector<int32_t> seq(static_cast<size_t>(s.B) * T);
  for (int32_t& t : seq) t = static_cast<int32_t>(rng.UniformInt(c.vocab));
  auto prefix = [&](int t) {
    std::vector<int32_t> out;
    for (int b = 0; b < s.B; ++b) out.insert(out.end(), seq.begin() + b * T, seq.begin() + b * T + t);
    return out;
  };
  auto d = CreateKvDecoder(c, params, s.B, s.P, T, precision, test::MakeGemmRunner());
  ASSERT_TRUE(d.ok()) << d.status();
  // The cache holds the K/V heads of every layer, stream and position, k and v.
  EXPECT_EQ((*d)->cache_bytes(),
            2 * int64_t{c.layers} * s.B * T * c.kv_width() * (precision == CudaPrecision::kBf16 ? 2 : 4));
  auto check = [&](int t, const char* what) {
    std::vector<float> got;
    ASSERT_TRUE((*d)->CopyLogitsToHost(&got).ok());
    ASSERT_EQ(got.size(), static_cast<size_t>(s.B) * c.padded_vocab);
    const std::vector<float> want = DropPadding(FullForwardLastLogits(c, params, prefix(t), s.B, t), c, s.B);
    const std::vector<float> mine = DropPadding(got, c, s.B);
    if (precision == CudaPrecision::kFp32) {
      EXPECT_LT(MaxRelErr(mine, want), 1e-4) << what << " at length " << t;
    } else {
      EXPECT_LT(NormRelErr(mine, want), 3e-2) << what << " at length " << t;
    }
  };
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    ASSERT_TRUE((*d)->Prefill(prefix(s.P), s.P).ok());
  }
  check(s.P, "prefill");
  // The prompt's matmuls: B*P rows through every Linear layer, the LM head on B rows.
  const double C = c.width, L = c.layers, rows = static_cast<double>(s.B) * s.P;
  EXPECT_DOUBLE_EQ(counter.by_tag()["qkv"], 2 * rows * C * c.qkv_width() * L);
  EXPECT_DOUBLE_EQ(counter.by_tag()["lm_head"], 2.0 * s.B * C * c.padded_vocab);
  std::vector<int32_t> next(s.B);
  for (int t = s.P; t < T; ++t) {
    for (int b = 0; b < s.B; ++b) next[b] = seq[b * T + t];
    ASSERT_TRUE((*d)->Step(next).ok());
    EXPECT_EQ((*d)->position(), t + 1);
    check(t + 1, "step");
  }
  // Greedy: the arg max of the logits it copies.
  std::vector<int32_t> greedy;
  ASSERT_TRUE((*d)->Greedy(&greedy).ok());
  std::vector<float> logits;
  ASSERT_TRUE((*d)->CopyLogitsToHost(&logits).ok());
  for (int b = 0; b < s.B; ++b) {
    const auto row = logits.begin() + static_cast<int64_t>(b) * c.padded_vocab;
    EXPECT_EQ(greedy[b], std::max_element(row, row + c.vocab) - row);
  }
}

TEST(KvDecoderTest, Fp32LogitsAtEveryStepEqualAFullForward) {
  DecodeMatchesFullForward(CudaPrecision::kFp32, SmallSetup());
}
TEST(KvDecoderTest, Bf16LogitsAtEveryStepEqualAFullForward) {
  DecodeMatchesFullForward(CudaPrecision::kBf16, SmallSetup());
}
TEST(KvDecoderTest, Fp32LlamaLogitsAtEveryStepEqualAFullForward) {
  DecodeMatchesFullForward(CudaPrecision::kFp32, LlamaSetup());
}
TEST(KvDecoderTest, Bf16LlamaLogitsAtEveryStepEqualAFullForward) {
  DecodeMatchesFullForward(CudaPrecision::kBf16, LlamaSetup());
}
// A tied LM head and multi-query attention (one K/V head) on the Llama switches.
TEST(KvDecoderTest, Fp32TiedMultiQueryLlamaEqualsAFullForward) {
  DecodeSetup s = LlamaSetup();
  s.config.tie_weights = true;
  s.config.kv_heads = 1;
  DecodeMatchesFullForward(CudaPrecision::kFp32, s);
}

// NKV K/V heads in the cache: NH (multi-head) or fewer (grouped-query attention).
void CacheKernelsMatchTheCpuTwin(int64_t NKV) {
  SKIP_WITHOUT_DEVICE();
  const int64_t B = 2, T = 3, C = 16, NH = 4, maxT = 8, pos = 4, hs = C / NH, QKV = C + 2 * NKV * hs;
  Rng rng(3);
  // A cache with 4 earlier positions, then 3 new tokens at positions 4..6.
  std::vector<float> old_qkv(B * pos * QKV), qkv(B * T * QKV);
  for (float& v : old_qkv) v = static_cast<float>(rng.Normal());
  for (float& v : qkv) v = static_cast<float>(rng.Normal());
  std::vector<float> kc(B * NKV * maxT * hs, 0.0f), vc(kc.size(), 0.0f), want(B * T * C),
      scratch(B * NH * maxT);
  // The CPU twin (model::, not this namespace's launchers of the same name).
  ::model::kv_cache_write(kc.data(), vc.data(), old_qkv.data(), B, pos, C, NH, maxT, int64_t{0}, NKV);
  ::model::kv_cache_write(kc.data(), vc.data(), qkv.data(), B, T, C, NH, maxT, pos, NKV);
  ::model::kv_attention_forward(want.data(), scratch.data(), qkv.data(), kc.data(), vc.data(), B, T, C, NH,
                                maxT, pos, NKV);

  test::DeviceBuffer<float> d_old(old_qkv), d_qkv(qkv), d_kc(std::vector<float>(kc.size(), 0.0f)),
      d_vc(std::vector<float>(vc.size(), 0.0f)), d_out(B * T * C), d_scores(B * T * NH * maxT);
  cuda::kv_cache_write(d_kc.get(), d_vc.get(), d_old.get(), B, pos, C, NH, maxT, int64_t{0}, NKV);
  cuda::kv_cache_write(d_kc.get(), d_vc.get(), d_qkv.get(), B, T, C, NH, maxT, pos, NKV);
  cuda::kv_attention_forward(d_out.get(), d_scores.get(), d_qkv.get(), d_kc.get(), d_vc.get(), B, T, C, NH,
                             maxT, pos, NKV);
  // The cache holds exactly what the CPU wrote (a copy), the output its attention.
  EXPECT_EQ(d_kc.Download(), kc);
  EXPECT_EQ(d_vc.Download(), vc);
  EXPECT_LT(MaxRelErr(d_out.Download(), want), 1e-5);
}

TEST(KvDecoderTest, CacheKernelsMatchTheCpuTwin) { CacheKernelsMatchTheCpuTwin(4); }
TEST(KvDecoderTest, GroupedQueryCacheKernelsMatchTheCpuTwin) {
  CacheKernelsMatchTheCpuTwin(2);
  CacheKernelsMatchTheCpuTwin(1);
}

TEST(KvDecoderTest, MisuseIsRefused) {
  SKIP_WITHOUT_DEVICE();
  const GptConfig c = *GptPreset("test-tiny");
  const std::vector<float> params = Params(c, 1);
  EXPECT_FALSE(CreateKvDecoder(c, params, 0, 2, 4, CudaPrecision::kFp32, test::MakeGemmRunner()).ok());
  EXPECT_FALSE(CreateKvDecoder(c, params, 1, 2, 17, CudaPrecision::kFp32, test::MakeGemmRunner()).ok());
  EXPECT_FALSE(CreateKvDecoder(c, params, 1, 2, 4, CudaPrecision::kTf32, test::MakeGemmRunner()).ok());
  EXPECT_FALSE(
      CreateKvDecoder(c, std::vector<float>(5), 1, 2, 4, CudaPrecision::kFp32, test::MakeGemmRunner()).ok());
  auto d = CreateKvDecoder(c, params, 1, 2, 3, CudaPrecision::kFp32, test::MakeGemmRunner());
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE((*d)->Prefill({1, 2, 3}, 3).ok());  // longer than the planned prompt
  EXPECT_FALSE((*d)->Prefill({1, 60}, 2).ok());    // token 60 >= vocab
  ASSERT_TRUE((*d)->Prefill({1, 2}, 2).ok());
  EXPECT_FALSE((*d)->Prefill({1, 2}, 2).ok());  // not after Reset
  ASSERT_TRUE((*d)->Step({3}).ok());
  EXPECT_EQ((*d)->Step({3}).code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace cuda
}  // namespace model
