// The emulator's per-thread capture (capture.h).
#include "cuda_emu/capture.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace emu {
namespace {

struct Capture {
  bool open = false;
  std::vector<CapturedOp> ops;
};

Capture& ThisThread() {
  thread_local Capture c;
  return c;
}

[[noreturn]] void Fail(const char* message) {
  std::fprintf(stderr, "emulated stream capture: %s\n", message);
  std::abort();
}

}  // namespace

bool Capturing() { return ThisThread().open; }

void Record(CapturedOp op) {
  Capture& c = ThisThread();
  if (!c.open) Fail("Record outside a capture");
  c.ops.push_back(std::move(op));
}

void BeginCapture() {
  Capture& c = ThisThread();
  if (c.open) Fail("BeginCapture while this thread is already capturing");
  c.open = true;
  c.ops.clear();
}

std::vector<CapturedOp> EndCapture() {
  Capture& c = ThisThread();
  if (!c.open) Fail("EndCapture without a BeginCapture");
  c.open = false;
  return std::exchange(c.ops, {});
}

void ForbidWhileCapturing(const char* what) {
  if (!Capturing()) return;
  std::fprintf(stderr, "emulated stream capture: %s is not allowed while capturing a graph\n", what);
  std::abort();
}

}  // namespace emu
