// The emulator's engine: blocks run one after another, each CUDA thread of a block a fiber that
// yields only when it waits at a barrier. On x86-64 a fiber switch is a few instructions
// (callee-saved registers, stack pointer, SSE and x87 control words; no signal-mask syscall as
// in swapcontext); elsewhere it falls back to ucontext.
//
// Fast path: block (0,0,0) always runs as fibers. If none of its threads used a barrier or a
// shuffle, the kernel is taken as barrier-free and the other blocks run their threads as plain
// calls, one after another; a thread that synchronises there after all aborts with a message
// (the kernel would be synchronising in some blocks only).
#include "cuda_emu/emu.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace emu {
namespace {

constexpr size_t kStackBytes = 128 * 1024;
constexpr int kWarp = 32;

// --- context switch -----------------------------------------------------------------------
#if defined(__x86_64__)
extern "C" void emu_switch_context(void** save_sp, void* load_sp);
asm(R"(
  .text
  .p2align 4
  .globl emu_switch_context
  .hidden emu_switch_context
  .type emu_switch_context, @function
emu_switch_context:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch_context, .-emu_switch_context
)");

struct Context {
  void* sp = nullptr;
};

void FiberEntry();

// A fresh stack whose first switch "returns" into FiberEntry with the ABI's entry alignment.
void MakeContext(Context* ctx, char* stack, size_t bytes) {
  uintptr_t top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
  uint64_t* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                        // fake return address of FiberEntry
  *--sp = reinterpret_cast<uint64_t>(&FiberEntry);  // popped by ret: 16-byte aligned slot
  for (int i = 0; i < 6; ++i) *--sp = 0;            // rbp rbx r12 r13 r14 r15
  uint32_t mxcsr = 0;
  uint16_t fpcw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpcw));
  *--sp = static_cast<uint64_t>(mxcsr) | (static_cast<uint64_t>(fpcw) << 32);
  ctx->sp = sp;
}

void Switch(Context* from, Context* to) { emu_switch_context(&from->sp, to->sp); }
#else
struct Context {
  ucontext_t uc;
};

void FiberEntry();

void MakeContext(Context* ctx, char* stack, size_t bytes) {
  getcontext(&ctx->uc);
  ctx->uc.uc_stack.ss_sp = stack;
  ctx->uc.uc_stack.ss_size = bytes;
  ctx->uc.uc_link = nullptr;
  makecontext(&ctx->uc, FiberEntry, 0);
}

void Switch(Context* from, Context* to) { swapcontext(&from->uc, &to->uc); }
#endif

// --- blocks of fibers ---------------------------------------------------------------------------
struct Barrier {
  int participants = 0;
  int arrived = 0;
  uint64_t generation = 0;
};

struct Fiber {
  Context ctx;
  Dim3 tid;
  int warp = 0;
  int lane = 0;
  bool done = false;
  Barrier* waiting = nullptr;  // blocked until waiting->generation != wait_generation
  uint64_t wait_generation = 0;
  uint64_t shuffles = 0;  // this lane's shuffle count: picks the slot buffer
};

struct Engine {
  Context scheduler;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<Fiber> fibers;
  int current = -1;
  bool direct = false;  // fast path: threads run as plain calls
  Dim3 grid, block, block_idx;
  const std::function<void()>* body = nullptr;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<uint64_t> slots;   // [2][warp][lane]: shuffles alternate between two buffers
  std::vector<uint64_t> stamps;  // [2][warp][lane]: 1 + warp barrier generation of the write
  int64_t syncs = 0;             // barriers and shuffles in the current launch
  int64_t launches = 0;
};

Engine& E() {
  static Engine* e = new Engine();
  return *e;
}

[[noreturn]] void Die(const char* what) {
  Engine& e = E();
  std::fprintf(stderr, "emu: %s (block (%u,%u,%u) of grid (%u,%u,%u), block dim (%u,%u,%u))\n", what,
               e.block_idx.x, e.block_idx.y, e.block_idx.z, e.grid.x, e.grid.y, e.grid.z, e.block.x,
               e.block.y, e.block.z);
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
  Engine& e = E();
  if (e.direct) {
    Die("a thread synchronised in a block other than block 0, whose threads never did: a "
        "barrier or shuffle in divergent code");
  }
  ++e.syncs;
  if (++b.arrived >= b.participants) {
    Release(b);
    return;
  }
  Fiber& f = Current();
  f.waiting = &b;
  f.wait_generation = b.generation;
  Switch(&f.ctx, &e.scheduler);
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

void FiberEntry() {
  Engine& e = E();
  (*e.body)();
  Fiber& f = e.fibers[e.current];
  f.done = true;
  Drop(e.block_barrier);
  Drop(e.warp_barriers[f.warp]);
  Switch(&f.ctx, &e.scheduler);
  Die("a finished fiber was resumed");
}

int BlockThreads() {
  const Dim3& b = E().block;
  return static_cast<int>(b.x * b.y * b.z);
}

Dim3 ThreadCoords(int i) {
  const Dim3& b = E().block;
  return Dim3(i % b.x, (i / b.x) % b.y, i / (b.x * b.y));
}

void RunBlockAsFibers() {
  Engine& e = E();
  const int n = BlockThreads();
  const int warps = (n + kWarp - 1) / kWarp;
  while (static_cast<int>(e.stacks.size()) < n) {
    e.stacks.emplace_back(new char[kStackBytes]);
  }
  e.fibers.assign(n, Fiber());
  e.block_barrier = Barrier();
  e.block_barrier.participants = n;
  e.warp_barriers.assign(warps, Barrier());
  for (int w = 0; w < warps; ++w) e.warp_barriers[w].participants = WarpSize(w);
  e.slots.assign(static_cast<size_t>(2 * warps * kWarp), 0);
  e.stamps.assign(static_cast<size_t>(2 * warps * kWarp), 0);
  for (int i = 0; i < n; ++i) {
    Fiber& f = e.fibers[i];
    f.tid = ThreadCoords(i);
    f.warp = i / kWarp;
    f.lane = i % kWarp;
    MakeContext(&f.ctx, e.stacks[i].get(), kStackBytes);
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
      Switch(&e.scheduler, &f.ctx);
      e.current = -1;
      progressed = true;
    }
    if (!live) break;
    if (!progressed) Die("deadlock: threads wait at a barrier that the others never reach");
  }
}

void RunBlockDirect() {
  Engine& e = E();
  const int n = BlockThreads();
  e.fibers.assign(1, Fiber());
  e.current = 0;
  for (int i = 0; i < n; ++i) {
    e.fibers[0].tid = ThreadCoords(i);
    e.fibers[0].warp = i / kWarp;
    e.fibers[0].lane = i % kWarp;
    (*e.body)();
  }
  e.current = -1;
}

}  // namespace

const Dim3& ThreadIdx() { return Current().tid; }
const Dim3& BlockIdx() { return E().block_idx; }
const Dim3& BlockDim() { return E().block; }
const Dim3& GridDim() { return E().grid; }

void SyncThreads() { Arrive(E().block_barrier); }

void SyncWarp() { Arrive(E().warp_barriers[Current().warp]); }

int LaneId() { return Current().lane; }

// One barrier per exchange: lanes write this exchange's buffer (alternating between two), meet,
// read. A lane can only write the same buffer again two exchanges later, after every lane has
// passed the barrier in between, i.e. after every lane has read this one. Each write is stamped
// with the barrier generation, so reading a lane that did not take part (it had exited) is
// caught.
uint64_t ExchangeWarp(uint64_t mine, int src) {
  Engine& e = E();
  if (e.direct) Arrive(e.block_barrier);  // dies with the divergence message
  Fiber& f = Current();
  const int warp = f.warp, lane = f.lane;
  Barrier& barrier = e.warp_barriers[warp];
  const uint64_t stamp = barrier.generation + 1;
  const size_t base = static_cast<size_t>((f.shuffles++ & 1) * e.warp_barriers.size() * kWarp);
  e.slots[base + warp * kWarp + lane] = mine;
  e.stamps[base + warp * kWarp + lane] = stamp;
  Arrive(barrier);
  if (src < 0 || src >= WarpSize(warp)) return mine;
  if (e.stamps[base + warp * kWarp + src] != stamp) {
    Die("warp shuffle reads a lane that has exited (or is not taking part in this shuffle)");
  }
  return e.slots[base + warp * kWarp + src];
}

void RunGrid(Dim3 grid, Dim3 block, const std::function<void()>& body) {
  Engine& e = E();
  if (e.current >= 0) Die("kernel launch from inside a kernel is not emulated");
  e.grid = grid;
  e.block = block;
  e.block_idx = Dim3(0, 0, 0);
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0) {
    Die("invalid launch: a grid or block dimension is 0");
  }
  if (threads > 1024) Die("invalid launch: more than 1024 threads per block");
  ++e.launches;
  e.body = &body;
  e.syncs = 0;
  e.direct = false;
  bool first = true;
  for (unsigned z = 0; z < grid.z; ++z) {
    for (unsigned y = 0; y < grid.y; ++y) {
      for (unsigned x = 0; x < grid.x; ++x) {
        e.block_idx = Dim3(x, y, z);
        if (first || !e.direct) {
          RunBlockAsFibers();
        } else {
          RunBlockDirect();
        }
        if (first) e.direct = e.syncs == 0;
        first = false;
      }
    }
  }
  e.direct = false;
  e.body = nullptr;
}

int64_t LaunchCount() { return E().launches; }

}  // namespace emu
