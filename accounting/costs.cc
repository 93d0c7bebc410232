// Matmul and elementwise FLOPs and bytes. One multiply-add counts as 2 FLOPs.
#include "accounting/costs.h"

namespace accounting {

double MatmulFlops(int64_t m, int64_t k, int64_t n) {
  // m*n outputs, each a sum of k products: k multiplies + (k-1) adds ~ k multiply-adds = 2k FLOPs.
  return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
}

double MatmulBytes(int64_t m, int64_t k, int64_t n, int bytes_per_el) {
  const double elements =
      static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n;
  return elements * bytes_per_el;
}

double ElementwiseBytes(int64_t elements, int inputs, int outputs, int bytes_per_el) {
  return static_cast<double>(elements) * (inputs + outputs) * bytes_per_el;
}

double ArithmeticIntensity(double flops, double bytes) { return bytes > 0 ? flops / bytes : 0.0; }

}  // namespace accounting
