// The int8 copies of a decoder's Linear weights (quantize_int8.h), quantised once at load, and
// the lookup from an fp32 weight slice to its int8 rows and scales. A decoder addresses a layer's
// weight as a pointer into the fp32 parameter buffer (qkvw + l * QKV * C, or the LM head); with
// int8 weights its Linear layer asks here for the same rows in int8. Each stacked tensor is one
// matrix of (L * OC) rows: per-output-channel scales make the layers' rows independent, so a
// layer's slice is a run of rows of the whole.
#ifndef MODEL_INT8_WEIGHTS_H_
#define MODEL_INT8_WEIGHTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "model/quantize_int8.h"

namespace model {

class Int8LinearWeights {
 public:
  // Quantises the fp32 weight w: (rows, cols) row-major; it must stay where it is (Find compares
  // addresses). Errors: those of QuantizeInt8 (a NaN or infinite weight, named), or a w already
  // added.
  absl::Status Add(const float* w, int64_t rows, int64_t cols);

  struct Rows {
    const int8_t* q = nullptr;       // (rows, cols) from the slice's first row
    const float* scales = nullptr;   // one a row, from the slice's first row
  };
  // The int8 rows of the fp32 slice starting at w, of `cols` columns: w must lie in a weight
  // added with that many columns, at the start of one of its rows; else it aborts naming the
  // address (a programming error of the decoder, not bad input).
  Rows Find(const float* w, int64_t cols) const;

  // The bytes of every int8 weight and scale (what the int8 Linear layers read over a step).
  int64_t bytes() const;

 private:
  struct Entry {
    const float* fp32 = nullptr;
    Int8Matrix m;
  };
  std::vector<Entry> entries_;
};

}  // namespace model

#endif  // MODEL_INT8_WEIGHTS_H_
