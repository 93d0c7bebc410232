// Thread count of the CPU model. OpenBLAS here is the OpenMP build and Debian's oneDNN uses the
// OpenMP runtime, so their GEMMs and the model's OpenMP loops share one pool; SetNumThreads sets
// it (omp_set_num_threads, which oneDNN follows, and openblas_set_num_threads) so they never
// fight over the cores.
#ifndef MODEL_THREADS_H_
#define MODEL_THREADS_H_

namespace model {

// n >= 1; values < 1 are treated as 1.
void SetNumThreads(int n);
// omp_get_max_threads(): what the next parallel region (and OpenBLAS) will use.
int NumThreads();
// OpenBLAS's own view (openblas_get_num_threads).
int BlasNumThreads();

}  // namespace model

#endif  // MODEL_THREADS_H_
