// FLOPs and bytes of the two kinds of work a benchmark issues: matmuls and elementwise ops.
//
// Convention: one multiply-add counts as 2 FLOPs (a multiply and an add), so a (m x k) @ (k x n)
// matmul is 2mkn FLOPs (m*n outputs, each k multiplies and k-1 ~ k adds). Datasheets quote
// FLOP/s in the same unit; a figure quoted in MACs would need doubling.
//
// Bytes assume the ideal data movement: each input is read from memory once and each output
// is written once (no re-reads from a too-small cache, no read-for-ownership). Real kernels
// move at least this much, so intensities computed here are upper bounds.
#ifndef ACCOUNTING_COSTS_H_
#define ACCOUNTING_COSTS_H_

#include <cstdint>

namespace accounting {

// a: (m, k), b: (k, n), c: (m, n). 2mkn: one multiply-add = 2 FLOPs.
double MatmulFlops(int64_t m, int64_t k, int64_t n);

// (m*k + k*n + m*n) * bytes_per_el: read a and b once, write c once.
double MatmulBytes(int64_t m, int64_t k, int64_t n, int bytes_per_el);

// (inputs + outputs) * elements * bytes_per_el: each input tensor read once, each output
// written once, all of `elements` elements. x * 2 on n floats: ElementwiseBytes(n, 1, 1, 4) = 8n.
double ElementwiseBytes(int64_t elements, int inputs, int outputs, int bytes_per_el);

// FLOPs per byte moved. 0 when bytes <= 0 (nothing moved: intensity undefined, reported as 0).
double ArithmeticIntensity(double flops, double bytes);

}  // namespace accounting

#endif  // ACCOUNTING_COSTS_H_
