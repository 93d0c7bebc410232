// The FLOP counts of cuDNN's causal flash attention (attention_cudnn.h): the causal triangle.
#include "accounting/flop_counter.h"
#include "model/cuda/attention_cudnn.h"

namespace model {
namespace cuda {
namespace {

// 2 * P * HS per head and product, P = T(T+1)/2 query-key pairs: reported as an (N*P) x HS x 1
// product, N = B * NH heads.
void CountTriangle(const AttentionShape& s, const char* tag) {
  const int64_t pairs = s.T * (s.T + 1) / 2;
  accounting::CountMatmul(s.B * s.NH * pairs, s.HS, 1, tag);
}

}  // namespace

void CountCudnnAttentionForwardFlops(const AttentionShape& s) {
  CountTriangle(s, "attention_qk");
  CountTriangle(s, "attention_av");
}

void CountCudnnAttentionBackwardFlops(const AttentionShape& s) {
  for (const char* tag :
       {"attention_qk_recompute", "attention_datt", "attention_dv", "attention_dq", "attention_dk"}) {
    CountTriangle(s, tag);
  }
}

}  // namespace cuda
}  // namespace model
