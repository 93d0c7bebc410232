// The op table, byte and FLOP counts, host storage and comparison of elementwise.h.
#include "micro/elementwise/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "accounting/costs.h"
#include "measure/random_fill.h"

namespace micro {
namespace {

// Tolerances: fp32 results against a double reference. Pure arithmetic ops are exact to
// rounding; exp/tanh-based ops use a polynomial exp on the CPU (~2 ulp); reductions over a
// row (layernorm) accumulate in fp32.
const ElementwiseOpInfo kOps[] = {
    {ElementwiseOp::kScale, "scale", 2, 1, 1, 1, 0, {}, {false, true}, 1e-6, 1e-7},
    {ElementwiseOp::kAdd, "add", 3, 2, 1, 1, 0, {}, {false, false, true}, 1e-6, 1e-7},
    {ElementwiseOp::kTriad, "triad", 3, 2, 1, 2, 0, {}, {false, false, true}, 1e-6, 1e-6},
    {ElementwiseOp::kGelu, "gelu", 2, 1, 1, 9, 0, {}, {false, true}, 1e-5, 1e-6},
    {ElementwiseOp::kLayerNorm, "layernorm", 2, 1, 1, 8, 768, {}, {false, true}, 1e-4, 1e-5},
    {ElementwiseOp::kSoftmax, "softmax", 2, 1, 1, 5, 1024, {}, {false, true}, 1e-5, 1e-8},
    {ElementwiseOp::kAdamW,
     "adamw",
     4,
     4,
     3,
     16,
     0,
     {false, false, false, true},
     {true, false, true, true},
     1e-5,
     1e-6},
};

float* AllocateFloats(int64_t n) {
  size_t bytes = ((static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(float) + 63) / 64) * 64;
  return static_cast<float*>(std::aligned_alloc(64, bytes));
}

}  // namespace

const std::vector<ElementwiseOp>& AllElementwiseOps() {
  static const std::vector<ElementwiseOp> ops = {
      ElementwiseOp::kScale,     ElementwiseOp::kAdd,     ElementwiseOp::kTriad, ElementwiseOp::kGelu,
      ElementwiseOp::kLayerNorm, ElementwiseOp::kSoftmax, ElementwiseOp::kAdamW};
  return ops;
}

const ElementwiseOpInfo& OpInfo(ElementwiseOp op) { return kOps[static_cast<int>(op)]; }

bool ParseElementwiseOp(const std::string& name, ElementwiseOp* op) {
  for (const ElementwiseOpInfo& info : kOps) {
    if (name == info.name) {
      *op = info.op;
      return true;
    }
  }
  return false;
}

ElementwiseProblem MakeElementwiseProblem(ElementwiseOp op, int64_t requested_n) {
  ElementwiseProblem p;
  p.op = op;
  p.row = OpInfo(op).row;
  p.n = requested_n;
  if (p.row > 0) p.n = std::max<int64_t>(1, requested_n / p.row) * p.row;
  return p;
}

int SmallArrayCount(const ElementwiseProblem& p) { return p.op == ElementwiseOp::kLayerNorm ? 4 : 0; }

int64_t SmallArrayLength(const ElementwiseProblem& p, int i) {
  if (p.op != ElementwiseOp::kLayerNorm || i < 0 || i > 3) return 0;
  return i < 2 ? p.row : p.rows();
}

bool SmallArrayIsOutput(const ElementwiseProblem& p, int i) {
  return p.op == ElementwiseOp::kLayerNorm && (i == 2 || i == 3);
}

double ElementwiseFlops(const ElementwiseProblem& p) {
  return static_cast<double>(p.n) * OpInfo(p.op).flops_per_element;
}

double ElementwiseByteCount(const ElementwiseProblem& p) { return ElementwiseTraffic(p, 0).bytes(); }

accounting::OpTraffic ElementwiseTraffic(const ElementwiseProblem& p, double working_set_bytes) {
  const ElementwiseOpInfo& info = OpInfo(p.op);
  accounting::OpTraffic t;
  t.read_bytes = accounting::ElementwiseBytes(p.n, info.big_reads, 0, sizeof(float));
  t.write_bytes = accounting::ElementwiseBytes(p.n, 0, info.big_writes, sizeof(float));
  if (p.op == ElementwiseOp::kLayerNorm) {
    t.read_bytes += accounting::ElementwiseBytes(p.row, 2, 0, sizeof(float));     // w, b
    t.write_bytes += accounting::ElementwiseBytes(p.rows(), 0, 2, sizeof(float));  // mean, rstd
  }
  t.in_place = p.op == ElementwiseOp::kAdamW;
  t.working_set_bytes = working_set_bytes;
  return t;
}

uint64_t BigArraySeed(int i) { return 1000 + static_cast<uint64_t>(i); }
uint64_t SmallArraySeed(int i) { return 2000 + static_cast<uint64_t>(i); }

std::string CompareElementwise(const ElementwiseProblem& p, const ElementwiseTensors& got,
                               const ElementwiseTensors& want) {
  const ElementwiseOpInfo& info = OpInfo(p.op);
  auto compare = [&](const char* kind, int i, const float* g, const float* w, int64_t len) -> std::string {
    for (int64_t j = 0; j < len; ++j) {
      const double gv = g[j], wv = w[j];
      const double tol = info.atol + info.rtol * std::fabs(wv);
      if (!(std::fabs(gv - wv) <= tol)) {  // also catches NaN
        char buf[256];
        std::snprintf(buf, sizeof(buf),
                      "%s: %s array %d, element %lld: got %.9g, reference %.9g "
                      "(|diff| %.3g > tolerance %.3g = %.0e + %.0e x |reference|)",
                      info.name, kind, i, static_cast<long long>(j), gv, wv, std::fabs(gv - wv), tol,
                      info.atol, info.rtol);
        return buf;
      }
    }
    return "";
  };
  for (int i = 0; i < info.big_arrays; ++i) {
    if (!info.big_output[i]) continue;
    std::string e = compare("big", i, got.big[i], want.big[i], p.n);
    if (!e.empty()) return e;
  }
  for (int i = 0; i < SmallArrayCount(p); ++i) {
    if (!SmallArrayIsOutput(p, i)) continue;
    std::string e = compare("small", i, got.small[i], want.small[i], SmallArrayLength(p, i));
    if (!e.empty()) return e;
  }
  return "";
}

HostElementwiseData::HostElementwiseData(const ElementwiseProblem& p, int64_t slices)
    : p_(p), slices_(std::max<int64_t>(1, slices)) {
  const ElementwiseOpInfo& info = OpInfo(p.op);
  for (int i = 0; i < info.big_arrays; ++i) {
    big_[i] = AllocateFloats(p.n * slices_);
    ok_ = ok_ && big_[i] != nullptr;
  }
  for (int i = 0; i < SmallArrayCount(p); ++i) {
    small_[i] = AllocateFloats(SmallArrayLength(p, i) * slices_);
    ok_ = ok_ && small_[i] != nullptr;
  }
}

HostElementwiseData::~HostElementwiseData() {
  for (float* b : big_) std::free(b);
  for (float* s : small_) std::free(s);
}

void HostElementwiseData::Fill() {
  const ElementwiseOpInfo& info = OpInfo(p_.op);
  for (int i = 0; i < info.big_arrays; ++i) {
    FillUniform(big_[i], p_.n * slices_, BigArraySeed(i), info.positive[i]);
  }
  for (int i = 0; i < SmallArrayCount(p_); ++i) {
    FillUniform(small_[i], SmallArrayLength(p_, i) * slices_, SmallArraySeed(i));
  }
}

ElementwiseTensors HostElementwiseData::Slice(int64_t s) const {
  ElementwiseTensors t;
  for (int i = 0; i < 4; ++i) {
    if (big_[i]) t.big[i] = big_[i] + s * p_.n;
    if (small_[i]) t.small[i] = small_[i] + s * SmallArrayLength(p_, i);
  }
  return t;
}

void HostElementwiseData::CopySliceFrom(const HostElementwiseData& other, int64_t s) {
  ElementwiseTensors src = other.Slice(s), dst = Slice(0);
  for (int i = 0; i < 4; ++i) {
    if (dst.big[i] && src.big[i]) std::memcpy(dst.big[i], src.big[i], p_.n * sizeof(float));
    if (dst.small[i] && src.small[i]) {
      std::memcpy(dst.small[i], src.small[i], SmallArrayLength(p_, i) * sizeof(float));
    }
  }
}

int64_t RotationSlices(const ElementwiseProblem& p, double footprint_bytes) {
  // Memory the slice occupies (not bytes moved: adamw moves 7 x 4n bytes over 4 arrays).
  double per_slice = static_cast<double>(OpInfo(p.op).big_arrays) * p.n * sizeof(float);
  for (int i = 0; i < SmallArrayCount(p); ++i) per_slice += SmallArrayLength(p, i) * sizeof(float);
  if (!(per_slice > 0) || per_slice >= footprint_bytes) return 1;
  return static_cast<int64_t>(std::ceil(footprint_bytes / per_slice));
}

}  // namespace micro
