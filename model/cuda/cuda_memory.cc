// The CUDA model's memory plan: sizes per tensor, aligned offsets, group totals, the fit check.
#include "model/cuda/cuda_memory.h"

#include "absl/strings/str_cat.h"
#include "model/param_layout.h"

namespace model {
namespace cuda {
namespace {

int64_t AlignUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

const char* GroupName(MemoryGroup g) {
  switch (g) {
    case MemoryGroup::kParams: return "params";
    case MemoryGroup::kGrads: return "grads";
    case MemoryGroup::kAdamW: return "AdamW m+v";
    case MemoryGroup::kWeightCopy: return "bf16 weights";
    case MemoryGroup::kActivations: return "activations";
    case MemoryGroup::kScratch: return "scratch";
  }
  return "?";
}

}  // namespace

std::string CudaMemoryPlan::Describe() const {
  std::string out;
  for (int g = 0; g < kNumMemoryGroups; ++g) {
    if (group_bytes[g] == 0) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", GroupName(static_cast<MemoryGroup>(g)), " ",
                    FormatBytes(group_bytes[g]));
  }
  absl::StrAppend(&out, ", cuBLASLt workspace ", FormatBytes(workspace_bytes), ": total ",
                  FormatBytes(total_bytes()), " (", StorageName(storage), " activations)");
  return out;
}

namespace {

// The layers' copies a recompute level keeps of per-layer tensor `id` (the rule of the CPU
// model's ActivationLayersKept, activation_layout.h), of L.
int64_t LayersKept(CudaTensor id, int64_t L, accounting::Recompute r) {
  using R = accounting::Recompute;
  using X = CudaTensor;
  switch (id) {
    case X::kLn1: case X::kLn1Mean: case X::kLn1Rstd: case X::kQkvr: case X::kResidual2:
    case X::kLn2: case X::kLn2Mean: case X::kLn2Rstd: case X::kFch:
      return r == R::kBlock ? 1 : L;
    case X::kAtt: case X::kAtty: case X::kAttStats:
      return r == R::kBlock || r == R::kAttention ? 1 : L;
    case X::kFchGelu:
      return r == R::kBlock || r == R::kActivation ? 1 : L;
    default:
      return L;  // the block outputs (kResidual3): what every level keeps
  }
}

}  // namespace

absl::StatusOr<CudaMemoryPlan> PlanCudaMemory(const GptConfig& config, int B, int T, StorageType storage,
                                              int64_t workspace_bytes, const AttentionMemory& attention,
                                              accounting::Recompute recompute) {
  if (auto st = ValidateRunShape(config, B, T); !st.ok()) return st;
  const int64_t L = config.layers, C = config.width, NH = config.heads;
  const int64_t QKV = config.qkv_width(), FC = config.fc_width(), F = config.hidden();
  const int64_t Vp = config.padded_vocab, BT = int64_t{B} * T;
  const int64_t np = ParamLayout(config).num_params();
  const int64_t s = StorageBytes(storage), f = 4, i32 = 4;
  const int64_t att = int64_t{B} * NH * T * T;
  const bool copy = storage == StorageType::kBf16;
  const int64_t kernels = attention.cudnn ? 0 : 1, cudnn = attention.cudnn ? 1 : 0;
  const int64_t layernorm = config.norm == NormKind::kLayerNorm ? 1 : 0;
  const int64_t rope = config.positions == PositionKind::kRope ? 1 : 0;
  const int64_t swiglu = config.mlp == MlpKind::kSwiglu ? 1 : 0;
  // The kernels keep q, k, v permuted with K/V expanded to NH heads; cuDNN the qkv rows as they are.
  const int64_t qkvr = attention.cudnn ? BT * QKV : 3 * BT * C;

  CudaMemoryPlan plan;
  plan.storage = storage;
  plan.workspace_bytes = workspace_bytes;
  plan.tensors.resize(kNumCudaTensors);
  auto add = [&](CudaTensor id, const char* name, MemoryGroup group, int64_t elements, int64_t element_bytes,
                 int64_t layers) {
    const int64_t layer_stride = AlignUp(elements * element_bytes, kTensorAlignment);
    plan.tensors[static_cast<int>(id)] = {id, name, group, elements, element_bytes, layers, layer_stride};
  };
  using G = MemoryGroup;
  using X = CudaTensor;
  add(X::kParams, "params", G::kParams, np, f, 1);
  add(X::kGrads, "grads", G::kGrads, np, f, 1);
  add(X::kAdamM, "adamw_m", G::kAdamW, np, f, 1);
  add(X::kAdamV, "adamw_v", G::kAdamW, np, f, 1);
  add(X::kParamsBf16, "params_bf16", G::kWeightCopy, np, 2, copy ? 1 : 0);
  add(X::kEncoded, "encoded", G::kActivations, BT * C, s, 1);
  add(X::kLn1, "ln1", G::kActivations, BT * C, s, L);
  add(X::kLn1Mean, "ln1_mean", G::kActivations, BT, f, L * layernorm);
  add(X::kLn1Rstd, "ln1_rstd", G::kActivations, BT, f, L);
  add(X::kQkvr, "qkvr", G::kActivations, qkvr, s, L);
  add(X::kAtt, "att", G::kActivations, att, s, L * kernels);
  add(X::kAtty, "atty", G::kActivations, BT * C, s, L);
  add(X::kResidual2, "residual2", G::kActivations, BT * C, s, L);
  add(X::kLn2, "ln2", G::kActivations, BT * C, s, L);
  add(X::kLn2Mean, "ln2_mean", G::kActivations, BT, f, L * layernorm);
  add(X::kLn2Rstd, "ln2_rstd", G::kActivations, BT, f, L);
  add(X::kFch, "fch", G::kActivations, BT * FC, s, L);
  add(X::kFchGelu, "fch_gelu", G::kActivations, BT * F, s, L);
  add(X::kResidual3, "residual3", G::kActivations, BT * C, s, L);
  add(X::kLnf, "lnf", G::kActivations, BT * C, s, 1);
  add(X::kLnfMean, "lnf_mean", G::kActivations, BT, f, layernorm);
  add(X::kLnfRstd, "lnf_rstd", G::kActivations, BT, f, 1);
  add(X::kLogits, "logits", G::kActivations, BT * Vp, s, 1);
  add(X::kLse, "lse", G::kActivations, BT, f, 1);
  add(X::kLosses, "losses", G::kActivations, BT, f, 1);
  add(X::kInputs, "inputs", G::kActivations, BT, i32, 1);
  add(X::kTargets, "targets", G::kActivations, BT, i32, 1);
  add(X::kQkv, "qkv", G::kScratch, BT * QKV, s, kernels);
  add(X::kVaccum, "vaccum", G::kScratch, BT * C, s, kernels);
  add(X::kDResidual, "dresidual", G::kScratch, BT * C, s, 1);
  add(X::kDBtc, "dbtc", G::kScratch, BT * C, s, 1);
  add(X::kDFch, "dfch", G::kScratch, BT * FC, s, 1);
  add(X::kDQkv, "dqkv", G::kScratch, BT * QKV, s, 1);
  add(X::kDQkvr, "dqkvr", G::kScratch, 3 * BT * C, s, kernels);
  add(X::kDAtt, "datt", G::kScratch, att, s, kernels);
  add(X::kDVaccum, "dvaccum", G::kScratch, BT * C, s, kernels);
  add(X::kProj, "proj", G::kScratch, BT * C, s, 1);
  add(X::kAdamWArgs, "adamw_args", G::kActivations, kAdamWArgsFloats, f, 1);
  add(X::kAttStats, "att_stats", G::kActivations, int64_t{B} * NH * T, f, L * cudnn);
  add(X::kCudnnWorkspace, "cudnn_workspace", G::kScratch, attention.cudnn_workspace_bytes, 1, cudnn);
  add(X::kRopeCos, "rope_cos", G::kActivations, int64_t{T} * (config.head_size() / 2), f, rope);
  add(X::kRopeSin, "rope_sin", G::kActivations, int64_t{T} * (config.head_size() / 2), f, rope);
  add(X::kDFchAct, "dfch_act", G::kScratch, BT * F, s, swiglu);

  if (recompute != accounting::Recompute::kNone && L > 1) {
    for (PlannedTensor& t : plan.tensors) {
      if (t.layers == L) t.layers = LayersKept(t.id, L, recompute);  // absent ones stay 0
    }
  }
  int64_t offset = 0;
  for (PlannedTensor& t : plan.tensors) {
    t.offset = offset;
    offset += t.bytes();
    plan.group_bytes[static_cast<int>(t.group)] += t.bytes();
  }
  plan.arena_bytes = offset;
  return plan;
}

absl::Status CheckFits(const CudaMemoryPlan& plan, int64_t free_bytes, int64_t total_bytes,
                       const std::string& device_name) {
  if (plan.total_bytes() <= free_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("not enough GPU memory on ", device_name, ": this model and batch need ",
                   FormatBytes(plan.total_bytes()), " (", plan.total_bytes(), " bytes: ", plan.Describe(),
                   ") but only ", FormatBytes(free_bytes), " (", free_bytes, " bytes) of ",
                   FormatBytes(total_bytes), " are free; use a smaller batch or sequence"));
}

}  // namespace cuda
}  // namespace model
