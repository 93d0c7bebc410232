"""Compiler flags every BUILD file loads (one place, as Abseil does)."""

# Host C++: a benchmark measures this machine, so -march=native is fair; the flags are
# recorded in each benchmark's JSON context (see accounting/build_info.h).
COPTS = [
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-march=native",
]

# Loops the CPU model and the elementwise benchmarks parallelise.
OPENMP_COPTS = ["-fopenmp"]
OPENMP_LINKOPTS = ["-fopenmp"]
