// The bf16 Linear layer on oneDNN (matmul_bf16_cpu.h).
#include "model/matmul_bf16_cpu.h"

#include <cstdio>
#include <cstdlib>

#include "accounting/flop_counter.h"
#include "model/bf16.h"
#include "model/matmul_cpu.h"
#include "model/onednn_gemm.h"

namespace model {
namespace {

OneDnnGemmShape Bf16Shape(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K) {
  OneDnnGemmShape s = PackedGemmShape(trans_a, trans_b, M, N, K);
  s.bf16 = true;
  return s;
}

}  // namespace

void matmul_forward_bf16(float* out, const uint16_t* inp, const uint16_t* weight, const float* bias, int64_t B,
                         int64_t T, int64_t C, int64_t OC, std::string_view tag) {
  const int64_t BT = B * T;
  accounting::CountMatmul(BT, C, OC, tag);
  OneDnnGemmShape s = Bf16Shape(/*trans_a=*/false, /*trans_b=*/true, BT, OC, C);
  s.bias = bias != nullptr;
  OneDnnGemmBf16(s, inp, weight, bias, out);
}

void matmul_backward_bf16(float* dinp, float* dweight, float* dbias, const float* dout, const uint16_t* inp,
                          const uint16_t* weight, int64_t B, int64_t T, int64_t C, int64_t OC,
                          uint16_t* dout_scratch, std::string_view tag, GradWrite write) {
  const int64_t BT = B * T;
  const bool overwrite = write == GradWrite::kOverwrite;
  if (dout != nullptr) {
    ConvertToBf16(dout, dout_scratch, BT * OC);
  } else if (dbias != nullptr) {
    std::fprintf(stderr, "matmul_backward_bf16 (%.*s): a bias gradient needs the fp32 dout, got nullptr\n",
                 static_cast<int>(tag.size()), tag.data());
    std::abort();
  }
  if (dinp != nullptr) {
    // dinp (BT, C) = dout (BT, OC) @ weight (OC, C)
    accounting::CountMatmul(BT, OC, C, tag);
    OneDnnGemmBf16(Bf16Shape(false, false, BT, C, OC), dout_scratch, weight, nullptr, dinp);
  }
  // dweight (OC, C) += dout^T (OC, BT) @ inp (BT, C), or = when overwriting
  accounting::CountMatmul(OC, BT, C, tag);
  OneDnnGemmShape sw = Bf16Shape(true, false, OC, C, BT);
  sw.beta = overwrite ? 0.0f : 1.0f;
  OneDnnGemmBf16(sw, dout_scratch, inp, nullptr, dweight);
  if (dbias != nullptr) bias_backward(dbias, dout, BT, OC, write);  // from the fp32 dout
}

}  // namespace model
