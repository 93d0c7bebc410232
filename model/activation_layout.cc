// Sizes of the CPU model's activation and scratch tensors.
#include "model/activation_layout.h"

namespace model {

std::vector<ActivationTensor> CpuActivationTensors(const GptConfig& c, int64_t B, int64_t T) {
  const int64_t L = c.layers, C = c.width, NH = c.heads, Vp = c.padded_vocab;
  const int64_t QKV = c.qkv_width(), F = c.hidden(), FC = c.fc_width();
  const int64_t BT = B * T;
  const int64_t mean = c.norm == NormKind::kLayerNorm ? 1 : 0;  // RMSNorm keeps no mean
  const int64_t swiglu = c.mlp == MlpKind::kSwiglu ? 1 : 0;
  return {
      {ActId::kEncoded, "encoded", BT * C},
      {ActId::kLn1, "ln1", L * BT * C},
      {ActId::kLn1Mean, "ln1_mean", mean * L * BT},
      {ActId::kLn1Rstd, "ln1_rstd", L * BT},
      {ActId::kQkv, "qkv", L * BT * QKV},
      {ActId::kAtty, "atty", L * BT * C},
      {ActId::kAtt, "att", L * B * NH * T * T},
      {ActId::kResidual2, "residual2", L * BT * C},
      {ActId::kLn2, "ln2", L * BT * C},
      {ActId::kLn2Mean, "ln2_mean", mean * L * BT},
      {ActId::kLn2Rstd, "ln2_rstd", L * BT},
      {ActId::kFch, "fch", L * BT * FC},
      {ActId::kFchGelu, "fch_act", L * BT * F},
      {ActId::kResidual3, "residual3", L * BT * C},
      {ActId::kLnf, "lnf", BT * C},
      {ActId::kLnfMean, "lnf_mean", mean * BT},
      {ActId::kLnfRstd, "lnf_rstd", BT},
      {ActId::kLogits, "logits", BT * Vp},
      {ActId::kLse, "lse", BT},
      {ActId::kLosses, "losses", BT},
      {ActId::kProj, "proj", BT * C},
      {ActId::kDResidual, "dresidual", BT * C},
      {ActId::kDBtc, "dbtc", BT * C},
      {ActId::kDFch, "dfch", BT * FC},
      {ActId::kDQkv, "dqkv", BT * QKV},
      {ActId::kDAtt, "datt", B * NH * T * T},
      {ActId::kDFchAct, "dfch_act", swiglu * BT * F},
  };
}

int64_t CpuActivationElements(const GptConfig& c, int64_t B, int64_t T) {
  int64_t n = 0;
  for (const ActivationTensor& t : CpuActivationTensors(c, B, T)) n += t.size;
  return n;
}

}  // namespace model
