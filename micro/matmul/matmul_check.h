// Checks a matmul result on a sample of entries against a double-precision dot product.
//
// For entry (i, j) of C = A B the reference is sum_k a_ik b_kj in double over the values the
// kernel actually read (already rounded to the storage dtype), and the error is judged
// relative to sum_k |a_ik b_kj|, the scale that rounding errors grow with:
//   |c_ij - ref| <= tol(dtype) * sum_k |a_ik b_kj|.
// tol: fp32 1e-5 (fp32 accumulation), tf32 4e-3 (inputs rounded to 10-bit mantissas inside the
// tensor cores), bf16 1e-2 and fp16 4e-3 (fp32 accumulation, output rounded to 8 / 11 bits).
#ifndef MICRO_MATMUL_MATMUL_CHECK_H_
#define MICRO_MATMUL_MATMUL_CHECK_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "accounting/dtype.h"

namespace micro {

double MatmulTolerance(accounting::Dtype dtype);

// `count` distinct (row, col) entries of an (m, n) result, always including the corners
// (0, 0) and (m - 1, n - 1); deterministic.
std::vector<std::pair<int64_t, int64_t>> MatmulSampleEntries(int64_t m, int64_t n, int count);

// a_rows: (S, K): row i_s of A; b_cols: (S, K): column j_s of B; c: (S): c_{i_s j_s}.
// Error: the first entry out of tolerance (which entry, values, tolerance), or a non-finite c.
absl::Status CheckMatmulSamples(accounting::Dtype dtype, int64_t k,
                                const std::vector<std::pair<int64_t, int64_t>>& entries, const float* a_rows,
                                const float* b_cols, const float* c);

}  // namespace micro

#endif  // MICRO_MATMUL_MATMUL_CHECK_H_
