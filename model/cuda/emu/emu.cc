// The emulator's engine: blocks run one after another, each CUDA thread of a block a fiber
// (ucontext) that yields only when it waits at a barrier.
#include "model/cuda/emu/emu.h"

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace emu {
namespace {

constexpr size_t kStackBytes = 256 * 1024;
constexpr int kWarp = 32;

struct Barrier {
  int participants = 0;
  int arrived = 0;
  uint64_t generation = 0;
};

struct Fiber {
  ucontext_t ctx;
  Dim3 tid;
  int warp = 0;
  int lane = 0;
  bool done = false;
  Barrier* waiting = nullptr;  // blocked until waiting->generation != wait_generation
  uint64_t wait_generation = 0;
};

struct Engine {
  ucontext_t scheduler;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<Fiber> fibers;
  int current = -1;
  Dim3 grid, block, block_idx;
  const std::function<void()>* body = nullptr;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<uint64_t> slots;  // [warp][lane]
  std::vector<char> alive;      // [warp][lane]
  int64_t launches = 0;
};

Engine& E() {
  static Engine* e = new Engine();
  return *e;
}

[[noreturn]] void Die(const char* what) {
  Engine& e = E();
  std::fprintf(stderr, "emu: %s (block (%u,%u,%u) of grid (%u,%u,%u), block dim (%u,%u,%u))\n",
               what, e.block_idx.x, e.block_idx.y, e.block_idx.z, e.grid.x, e.grid.y, e.grid.z,
               e.block.x, e.block.y, e.block.z);
  std::abort();
}

Fiber& Current() {
  Engine& e = E();
  if (e.current < 0) Die("a CUDA thread function was called outside a kernel");
  return e.fibers[e.current];
}

void Release(Barrier& b) {
  b.arrived = 0;
  ++b.generation;
}

void Arrive(Barrier& b) {
  if (++b.arrived >= b.participants) {
    Release(b);
    return;
  }
  Fiber& f = Current();
  f.waiting = &b;
  f.wait_generation = b.generation;
  swapcontext(&f.ctx, &E().scheduler);
}

void Drop(Barrier& b) {
  --b.participants;
  if (b.arrived > 0 && b.arrived >= b.participants) Release(b);
}

int WarpSize(int warp) {
  const int n = static_cast<int>(E().fibers.size());
  const int rest = n - warp * kWarp;
  return rest < kWarp ? rest : kWarp;
}

void FiberMain() {
  Engine& e = E();
  (*e.body)();
  Fiber& f = e.fibers[e.current];
  f.done = true;
  e.alive[f.warp * kWarp + f.lane] = 0;
  Drop(e.block_barrier);
  Drop(e.warp_barriers[f.warp]);
  // Returning resumes uc_link: the scheduler.
}

void RunBlock() {
  Engine& e = E();
  const int n = static_cast<int>(e.block.x * e.block.y * e.block.z);
  const int warps = (n + kWarp - 1) / kWarp;
  while (static_cast<int>(e.stacks.size()) < n) {
    e.stacks.emplace_back(new char[kStackBytes]);
  }
  e.fibers.assign(n, Fiber());
  e.block_barrier = Barrier();
  e.block_barrier.participants = n;
  e.warp_barriers.assign(warps, Barrier());
  for (int w = 0; w < warps; ++w) e.warp_barriers[w].participants = WarpSize(w);
  e.slots.assign(static_cast<size_t>(warps) * kWarp, 0);
  e.alive.assign(static_cast<size_t>(warps) * kWarp, 0);
  for (int i = 0; i < n; ++i) {
    Fiber& f = e.fibers[i];
    f.tid = Dim3(i % e.block.x, (i / e.block.x) % e.block.y, i / (e.block.x * e.block.y));
    f.warp = i / kWarp;
    f.lane = i % kWarp;
    e.alive[i] = 1;
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = e.stacks[i].get();
    f.ctx.uc_stack.ss_size = kStackBytes;
    f.ctx.uc_link = &e.scheduler;
    makecontext(&f.ctx, FiberMain, 0);
  }
  for (;;) {
    bool live = false, progressed = false;
    for (int i = 0; i < n; ++i) {
      Fiber& f = e.fibers[i];
      if (f.done) continue;
      live = true;
      if (f.waiting != nullptr && f.waiting->generation == f.wait_generation) continue;
      f.waiting = nullptr;
      e.current = i;
      swapcontext(&e.scheduler, &f.ctx);
      e.current = -1;
      progressed = true;
    }
    if (!live) break;
    if (!progressed) Die("deadlock: threads wait at a barrier that the others never reach");
  }
}

}  // namespace

const Dim3& ThreadIdx() { return Current().tid; }
const Dim3& BlockIdx() { return E().block_idx; }
const Dim3& BlockDim() { return E().block; }
const Dim3& GridDim() { return E().grid; }

void SyncThreads() { Arrive(E().block_barrier); }

void SyncWarp() { Arrive(E().warp_barriers[Current().warp]); }

int LaneId() { return Current().lane; }

uint64_t ExchangeWarp(uint64_t mine, int src) {
  Engine& e = E();
  const Fiber& f = Current();
  const int warp = f.warp, lane = f.lane;
  e.slots[warp * kWarp + lane] = mine;
  Arrive(e.warp_barriers[warp]);
  uint64_t got = mine;
  if (src >= 0 && src < WarpSize(warp)) {
    if (!e.alive[warp * kWarp + src]) Die("warp shuffle reads a lane that has exited");
    got = e.slots[warp * kWarp + src];
  }
  Arrive(e.warp_barriers[warp]);
  return got;
}

void RunGrid(Dim3 grid, Dim3 block, const std::function<void()>& body) {
  Engine& e = E();
  if (e.current >= 0) Die("kernel launch from inside a kernel is not emulated");
  e.grid = grid;
  e.block = block;
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0) {
    Die("invalid launch: a grid or block dimension is 0");
  }
  if (threads > 1024) Die("invalid launch: more than 1024 threads per block");
  ++e.launches;
  e.body = &body;
  for (unsigned z = 0; z < grid.z; ++z) {
    for (unsigned y = 0; y < grid.y; ++y) {
      for (unsigned x = 0; x < grid.x; ++x) {
        e.block_idx = Dim3(x, y, z);
        RunBlock();
      }
    }
  }
  e.body = nullptr;
}

int64_t LaunchCount() { return E().launches; }

}  // namespace emu
