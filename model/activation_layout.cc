// Sizes of the CPU model's activation and scratch tensors.
#include "model/activation_layout.h"

namespace model {

int64_t ActivationLayersKept(ActId id, const GptConfig& c, accounting::Recompute r) {
  using R = accounting::Recompute;
  switch (id) {
    case ActId::kLn1: case ActId::kLn1Mean: case ActId::kLn1Rstd: case ActId::kQkv: case ActId::kResidual2:
    case ActId::kLn2: case ActId::kLn2Mean: case ActId::kLn2Rstd: case ActId::kFch:
      return r == R::kBlock ? 1 : c.layers;
    case ActId::kAtty: case ActId::kAtt:
      return r == R::kBlock || r == R::kAttention ? 1 : c.layers;
    case ActId::kFchGelu:
      return r == R::kBlock || r == R::kActivation ? 1 : c.layers;
    case ActId::kResidual3:
      return c.layers;  // the blocks' outputs: what kBlock keeps
    default:
      return 1;
  }
}

std::vector<ActivationTensor> CpuActivationTensors(const GptConfig& c, int64_t B, int64_t T,
                                                   accounting::Recompute r) {
  const int64_t C = c.width, NH = c.heads, Vp = c.padded_vocab;
  const int64_t QKV = c.qkv_width(), F = c.hidden(), FC = c.fc_width();
  const int64_t BT = B * T;
  const int64_t mean = c.norm == NormKind::kLayerNorm ? 1 : 0;  // RMSNorm keeps no mean
  const int64_t swiglu = c.mlp == MlpKind::kSwiglu ? 1 : 0;
  auto kept = [&](ActId id) { return ActivationLayersKept(id, c, r); };
  return {
      {ActId::kEncoded, "encoded", BT * C},
      {ActId::kLn1, "ln1", kept(ActId::kLn1) * BT * C},
      {ActId::kLn1Mean, "ln1_mean", mean * kept(ActId::kLn1Mean) * BT},
      {ActId::kLn1Rstd, "ln1_rstd", kept(ActId::kLn1Rstd) * BT},
      {ActId::kQkv, "qkv", kept(ActId::kQkv) * BT * QKV},
      {ActId::kAtty, "atty", kept(ActId::kAtty) * BT * C},
      {ActId::kAtt, "att", kept(ActId::kAtt) * B * NH * T * T},
      {ActId::kResidual2, "residual2", kept(ActId::kResidual2) * BT * C},
      {ActId::kLn2, "ln2", kept(ActId::kLn2) * BT * C},
      {ActId::kLn2Mean, "ln2_mean", mean * kept(ActId::kLn2Mean) * BT},
      {ActId::kLn2Rstd, "ln2_rstd", kept(ActId::kLn2Rstd) * BT},
      {ActId::kFch, "fch", kept(ActId::kFch) * BT * FC},
      {ActId::kFchGelu, "fch_act", kept(ActId::kFchGelu) * BT * F},
      {ActId::kResidual3, "residual3", kept(ActId::kResidual3) * BT * C},
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

int64_t CpuActivationElements(const GptConfig& c, int64_t B, int64_t T, accounting::Recompute r) {
  int64_t n = 0;
  for (const ActivationTensor& t : CpuActivationTensors(c, B, T, r)) n += t.size;
  return n;
}

}  // namespace model
