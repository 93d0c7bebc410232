/* Test fixture: a cblas_sgemm that writes 12345 into C and computes nothing. Loaded with
 * LD_PRELOAD in front of OpenBLAS, it must make every check that uses sgemm fail, and every
 * binary and tool downstream exit non-zero (a wrong result is never a benchmark figure). */
#include <stddef.h>

void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  (void)transa;
  (void)transb;
  (void)k;
  (void)alpha;
  (void)a;
  (void)lda;
  (void)b;
  (void)ldb;
  (void)beta;
  /* CblasRowMajor = 101: rows of length ldc; column major: columns of length ldc. */
  int outer = order == 101 ? m : n, inner = order == 101 ? n : m;
  for (int i = 0; i < outer; ++i) {
    for (int j = 0; j < inner; ++j) c[(size_t)i * ldc + j] = 12345.0f;
  }
}
