// The CPU decoder with int8 weights against the fp32 decoder over the dequantised weights (q * s
// in place of every Linear weight): the same model up to fp32 rounding, so the logits after the
// prompt and at every step agree to fp32 precision, while they differ from the fp32 weights'
// logits by the quantisation error (small, and not zero: the int8 copy is what runs). GPT-2's
// family (test-mini: tied LM head, whose int8 copy is wte's while the embedding reads the fp32
// wte) and the Llama family (llama-tiny: GQA, untied head); 2 streams (steps on the int8
// matvec, the prompt on the dequantised GEMM) and 10 (steps on the GEMM too).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/cpu_decoder.h"
#include "model/decoder_test_util.h"
#include "model/param_init.h"
#include "model/quantize_int8.h"

namespace model {
namespace {

// The Linear weights as the decoder quantises them: (pointer into params, rows, columns).
std::vector<std::tuple<float*, int64_t, int64_t>> LinearWeights(const GptConfig& c, float* params) {
  const ParamPointers<float> p = PointParams(ParamLayout(c), params);
  const int64_t C = c.width, L = c.layers;
  return {{p.qkvw, L * c.qkv_width(), C},
          {p.attprojw, L * C, C},
          {p.fcw, L * c.fc_width(), C},
          {p.fcprojw, L * C, c.hidden()},
          {p.lm_head, c.padded_vocab, C}};
}

// w := dequant(quant(w)) in place.
void RoundTrip(float* w, int64_t rows, int64_t cols) {
  std::vector<int8_t> q(rows * cols);
  std::vector<float> s(rows);
  ASSERT_TRUE(QuantizeInt8(w, rows, cols, q.data(), s.data()).ok());
  DequantizeInt8(q.data(), s.data(), rows, cols, w);
}

TEST(CpuDecoderInt8, LogitsEqualTheFp32DecoderOverTheDequantisedWeights) {
  for (const auto& [preset, B] : {std::pair{"test-mini", 2}, std::pair{"test-mini", 10},
                                  std::pair{"llama-tiny", 2}, std::pair{"llama-tiny", 10}}) {
    SCOPED_TRACE(absl::StrCat(preset, " B=", B));
    const GptConfig config = *GptPreset(preset);
    std::vector<float> params(ParamLayout(config).num_params());
    InitParams(config, ParamLayout(config), 7, params.data());
    // The tied wte is both the embedding (read in fp32) and the LM head (read in int8): rounded to
    // its int8 grid first, so that both decoders embed the same values (quantising it again
    // moves it by an ulp at most).
    float* wte = PointParams(ParamLayout(config), params.data()).wte;
    RoundTrip(wte, config.padded_vocab, config.width);
    std::vector<float> dequant = params;
    for (const auto& [w, rows, cols] : LinearWeights(config, dequant.data())) RoundTrip(w, rows, cols);

    const int P = 6, G = 5, T = P + G;
    const std::vector<int32_t> seq = RandomTokens(B * T, config.vocab, 19);
    auto int8 = CpuDecoder::Create(config, params.data(), B, P, T, WeightFormat::kInt8);
    auto ref = CpuDecoder::Create(config, dequant.data(), B, P, T);
    auto fp32 = CpuDecoder::Create(config, params.data(), B, P, T);
    ASSERT_TRUE(int8.ok() && ref.ok() && fp32.ok()) << int8.status() << ref.status() << fp32.status();
    EXPECT_EQ((*int8)->weights(), WeightFormat::kInt8);
    std::vector<int32_t> prompt;
    for (int b = 0; b < B; ++b) prompt.insert(prompt.end(), seq.begin() + b * T, seq.begin() + b * T + P);
    double worst_ref = 0, worst_fp32 = 0;
    for (int t = P; t <= T; ++t) {
      for (auto* d : {&*int8, &*ref, &*fp32}) {
        if (t == P) {
          ASSERT_TRUE((*d)->Prefill(prompt, P).ok());
        } else {
          std::vector<int32_t> next(B);
          for (int b = 0; b < B; ++b) next[b] = seq[b * T + t - 1];
          ASSERT_TRUE((*d)->Step(next).ok());
        }
      }
      const double e_ref = MaxRelErr((*int8)->logits(), (*ref)->logits(), B, config);
      EXPECT_LT(e_ref, 2e-5) << "at position " << t;
      worst_ref = std::max(worst_ref, e_ref);
      worst_fp32 = std::max(worst_fp32, MaxRelErr((*int8)->logits(), (*fp32)->logits(), B, config));
    }
    // The int8 copy is what ran: not the fp32 weights' logits, but close to them.
    EXPECT_GT(worst_fp32, 20 * worst_ref);
    EXPECT_LT(worst_fp32, 3e-2);
    std::printf("int8 decoder %s B=%d: worst relative error %.3g vs the dequantised fp32, %.3g vs fp32\n", preset, B,
                worst_ref, worst_fp32);
  }
}

TEST(CpuDecoderInt8, NonFiniteWeightIsRefusedNamingIt) {
  const GptConfig config = *GptPreset("test-tiny");
  std::vector<float> params(ParamLayout(config).num_params(), 0.01f);
  PointParams(ParamLayout(config), params.data()).fcw[5] = NAN;
  auto d = CpuDecoder::Create(config, params.data(), 1, 2, 4, WeightFormat::kInt8);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(std::string(d.status().message()).find("row 0, column 5 is nan"), std::string::npos) << d.status();
  // fp32 takes the same weights (it does not look at them).
  EXPECT_TRUE(CpuDecoder::Create(config, params.data(), 1, 2, 4).ok());
}

}  // namespace
}  // namespace model
