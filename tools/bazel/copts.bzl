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

# Targets whose float loops must vectorise, above all every target that includes
# model/fast_math_cpu.h (it refuses to compile without -fno-trapping-math):
# - -fno-math-errno lets sqrt vectorise; no code that takes these reads errno after math.
# - -fno-trapping-math lets GCC if-convert a branch whose arm holds float arithmetic (it may then
#   compute both arms). Without it, on AVX2 without AVX-512's masks, exp_fast's and tanh_fast's
#   clamps kept the GeLU and the loss's softmax loops scalar (67.8 and 43.0 + 39.9 ms a step on a
#   Zen 3 VM, against 9.3 and 6.5 + 4.8 with it). No code that takes these enables or reads
#   floating-point exceptions, and no result changes: every operation still rounds as IEEE says.
VECTOR_MATH_COPTS = [
    "-fno-math-errno",
    "-fno-trapping-math",
]
