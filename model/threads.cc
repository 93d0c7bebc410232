// Thread count shared by OpenMP loops and OpenBLAS.
#include "model/threads.h"

#include <cblas.h>
#include <omp.h>

namespace model {

void SetNumThreads(int n) {
  if (n < 1) n = 1;
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

int NumThreads() { return omp_get_max_threads(); }

int BlasNumThreads() { return openblas_get_num_threads(); }

}  // namespace model
