// A small CUDA kernel emulator, so the CUDA model's own kernels and launchers run (slowly, but
// exactly as written) on a machine without a GPU, under the host compiler.
//
// How: the launcher sources (*_cuda.cu) are compiled a second time as C++ with emu/include on
// the include path, whose cuda_runtime.h maps the CUDA surface they use (threadIdx, __syncthreads,
// warp shuffles, atomicAdd, MODEL_CUDA_LAUNCH, cudaGetLastError) onto this engine. A launch runs
// the grid's blocks one after another; inside a block every CUDA thread is a fiber (ucontext)
// on the calling OS thread, switched only at barriers (__syncthreads, __syncwarp, shuffles).
// So __shared__ can be a static (one block at a time) and atomics need no locks.
//
// What it checks beyond the arithmetic: a barrier that can never complete (some threads wait at
// __syncthreads while the others have exited or wait elsewhere) aborts with "deadlock", and a
// shuffle that reads an exited lane aborts. What it does not model: timing, memory coalescing,
// races that only a parallel machine shows, warp-synchronous code without explicit syncs.
#ifndef CUDA_EMU_EMU_H_
#define CUDA_EMU_EMU_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_emu/capture.h"

namespace emu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// The current fiber's coordinates (valid inside a kernel body).
const Dim3& ThreadIdx();
const Dim3& BlockIdx();
const Dim3& BlockDim();
const Dim3& GridDim();

void SyncThreads();
void SyncWarp();

// Warp exchange of up to 8 bytes: every live lane of the warp must call it (as on the GPU with
// a full mask). ExchangeWarp returns the value lane `src` offered; src out of [0, 32) or beyond
// the warp returns the caller's own value (as __shfl_down_sync does past the end).
uint64_t ExchangeWarp(uint64_t mine, int src);
int LaneId();

template <typename T>
T ShuffleFrom(T v, int src) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffle of <= 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  const uint64_t got = ExchangeWarp(bits, src);
  T out;
  std::memcpy(&out, &got, sizeof(T));
  return out;
}

// Runs body once per thread of every block. Aborts with a message on a deadlock, on a grid or
// block of size 0, or on a block of more than 1024 threads (the CUDA limit).
void RunGrid(Dim3 grid, Dim3 block, const std::function<void()>& body);

// Number of kernel launches run since the process started (tests use it to see work happen).
int64_t LaunchCount();

// MODEL_CUDA_LAUNCH(kernel, grid, block)(args...) in emulation: converts the arguments to the
// kernel's parameter types once, then runs the grid; while the thread is capturing (capture.h)
// it records the launch with a copy of those parameters instead, as a captured kernel node
// holds its arguments.
template <typename... P>
class Launcher {
 public:
  Launcher(Dim3 grid, Dim3 block, void (*kernel)(P...)) : grid_(grid), block_(block), k_(kernel) {}
  template <typename... A>
  void operator()(A&&... args) const {
    std::tuple<P...> params(std::forward<A>(args)...);
    if (Capturing()) {
      Record([grid = grid_, block = block_, k = k_, params] {
        RunGrid(grid, block, [&] { std::apply(k, params); });
      });
      return;
    }
    RunGrid(grid_, block_, [&] { std::apply(k_, params); });
  }

 private:
  Dim3 grid_, block_;
  void (*k_)(P...);
};

template <typename... P>
Launcher<P...> Launch(Dim3 grid, Dim3 block, void (*kernel)(P...)) {
  return Launcher<P...>(grid, block, kernel);
}

}  // namespace emu

#endif  // CUDA_EMU_EMU_H_
