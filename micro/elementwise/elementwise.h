// The memory-bound ops of a transformer, as one table and three implementations:
// a plain serial reference (double accumulation), an OpenMP CPU version (vectorising loops),
// and CUDA kernels (elementwise_cuda.cu) with the same data layout.
//
// Legend: n = elements of each big array; C = row length (layernorm, softmax);
// rows = n / C. Every array is fp32.
//
//   op         big arrays (each (n,))                 small arrays            FLOPs/element
//   scale      0 x in, 1 y out: y = 2 x               -                       1
//   add        0 x in, 1 y in, 2 z out: z = x + y     -                       1
//   triad      0 b in, 1 c in, 2 a out: a = b + 3 c   -                       2
//   gelu       0 x in, 1 y out (tanh form, GPT-2)     -                       9 (tanh = 1)
//   layernorm  0 x in, 1 y out                        0 w (C) in, 1 b (C) in, 8
//                                                      2 mean (rows) out, 3 rstd (rows) out
//   softmax    0 x in, 1 y out (over each row)        -                       5 (exp = 1)
//   adamw      0 p in/out, 1 g in, 2 m in/out,        -                       16 (sqrt = 1)
//              3 v in/out (v > 0)
//
// FLOP counts are a convention stated here (a transcendental counts as one operation); the
// ops are memory-bound, so the figure that matters is bytes/s, and bytes come from
// accounting::ElementwiseBytes (each input read once, each output written once).
//
// Host-only, and free of Abseil so CUDA translation units can include it too.
#ifndef MICRO_ELEMENTWISE_ELEMENTWISE_H_
#define MICRO_ELEMENTWISE_ELEMENTWISE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "accounting/memory_roofs.h"
#include "model/layernorm_math.h"

namespace micro {

enum class ElementwiseOp { kScale, kAdd, kTriad, kGelu, kLayerNorm, kSoftmax, kAdamW };

struct ElementwiseOpInfo {
  ElementwiseOp op;
  const char* name;          // "scale", "add", "triad", "gelu", "layernorm", "softmax", "adamw"
  int big_arrays;            // arrays of n elements
  int big_reads;             // of them read
  int big_writes;            // of them written
  double flops_per_element;  // see the table above
  int64_t row;               // C for row ops (layernorm 768, softmax 1024), 0 otherwise
  bool positive[4];          // big array i must hold positive values (adamw's v)
  bool big_output[4];        // big array i is written (compared against the reference)
  double rtol, atol;         // |got - want| <= atol + rtol * |want|, fp32 vs reference
};

constexpr float kScaleFactor = 2.0f;  // scale: y = 2 x (the seed's x * 2)
constexpr float kTriadScalar = 3.0f;  // triad: a = b + 3 c
using model::kLayerNormEps;           // 1e-5, as the model

struct AdamWParams {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
  int step = 10;  // bias corrections 1 - beta^step
};

const std::vector<ElementwiseOp>& AllElementwiseOps();
const ElementwiseOpInfo& OpInfo(ElementwiseOp op);
// By name; false when unknown.
bool ParseElementwiseOp(const std::string& name, ElementwiseOp* op);

struct ElementwiseProblem {
  ElementwiseOp op = ElementwiseOp::kScale;
  int64_t n = 0;    // elements per big array (a multiple of row for row ops)
  int64_t row = 0;  // C for row ops, 0 otherwise
  int64_t rows() const { return row > 0 ? n / row : 0; }
};

// n rounded down to whole rows for row ops (at least one row).
ElementwiseProblem MakeElementwiseProblem(ElementwiseOp op, int64_t requested_n);

// Small-array i's length: layernorm 0,1 -> C, 2,3 -> rows; 0 elsewhere.
int64_t SmallArrayLength(const ElementwiseProblem& p, int i);
int SmallArrayCount(const ElementwiseProblem& p);
bool SmallArrayIsOutput(const ElementwiseProblem& p, int i);

// n * flops_per_element.
double ElementwiseFlops(const ElementwiseProblem& p);
// accounting::ElementwiseBytes of the big arrays, plus the small arrays (layernorm reads w
// and b, writes mean and rstd).
double ElementwiseByteCount(const ElementwiseProblem& p);

// What the op moves, as it declares it for its roof (accounting/memory_roofs.h): the bytes of
// ElementwiseByteCount split into read and written, in place for adamw (p, m and v are updated
// where they were read), plain stores elsewhere. working_set_bytes: the caller's (the CPU cases
// rotate through at least 4x the last-level cache, so theirs is the rotation's span).
accounting::OpTraffic ElementwiseTraffic(const ElementwiseProblem& p, double working_set_bytes);

// Pointers to one problem's arrays (host or device memory, by context).
struct ElementwiseTensors {
  float* big[4] = {nullptr, nullptr, nullptr, nullptr};
  float* small[4] = {nullptr, nullptr, nullptr, nullptr};
};

// Seed of big array i / small array i (shared by host and device fills).
uint64_t BigArraySeed(int i);
uint64_t SmallArraySeed(int i);

// The serial reference, double accumulation: the definition every implementation matches.
void ReferenceElementwise(const ElementwiseProblem& p, const ElementwiseTensors& t);
// The OpenMP CPU implementation (what the CPU benchmark times).
void CpuElementwise(const ElementwiseProblem& p, const ElementwiseTensors& t);

// Compares every output array of `got` with `want` (host pointers) under the op's tolerance.
// Empty when all match; else the first mismatch: array, index, values, tolerance.
std::string CompareElementwise(const ElementwiseProblem& p, const ElementwiseTensors& got,
                               const ElementwiseTensors& want);

// Host storage for `slices` copies of one problem's arrays, laid out slice after slice, so a
// benchmark can rotate through them (slice s of big array i starts at s * n). 64-byte aligned.
class HostElementwiseData {
 public:
  HostElementwiseData(const ElementwiseProblem& p, int64_t slices);
  ~HostElementwiseData();
  HostElementwiseData(const HostElementwiseData&) = delete;
  HostElementwiseData& operator=(const HostElementwiseData&) = delete;

  bool ok() const { return ok_; }  // false: an allocation failed
  int64_t slices() const { return slices_; }
  // Fills every array of every slice: HashUniform(seed of the array, index in the pool).
  void Fill();
  ElementwiseTensors Slice(int64_t s) const;
  // Copies slice `s` of `other` (same problem) into slice 0 of this.
  void CopySliceFrom(const HostElementwiseData& other, int64_t s);

 private:
  ElementwiseProblem p_;
  int64_t slices_;
  bool ok_ = true;
  float* big_[4] = {nullptr, nullptr, nullptr, nullptr};
  float* small_[4] = {nullptr, nullptr, nullptr, nullptr};
};

// Slices needed so that one full rotation spans at least `footprint_bytes` of array memory
// (1 at least).
int64_t RotationSlices(const ElementwiseProblem& p, double footprint_bytes);

}  // namespace micro

#endif  // MICRO_ELEMENTWISE_ELEMENTWISE_H_
