// Stream capture for the emulator: the stand-in for a CUDA graph (CUDA Programming Guide, "CUDA
// Graphs", creating a graph by stream capture). Between BeginCapture and EndCapture, the device
// work that would run now (kernel launches through emu::Launcher, the emulated device API's
// memsets and device copies, the reference GEMM) is appended, as closures holding copies of
// their arguments, to the calling thread's capture instead; running the returned list replays
// that work in order, as cudaGraphLaunch replays the captured kernels with their baked
// arguments. One capture per thread, as one capture per stream on a GPU (the model's stream is
// the per-thread default stream).
//
// Plain C++ with no include-path tricks (unlike :emu_runtime), so host code that is not built
// against the stand-in CUDA headers (the reference GEMM) can honour a capture too.
#ifndef CUDA_EMU_CAPTURE_H_
#define CUDA_EMU_CAPTURE_H_

#include <functional>
#include <vector>

namespace emu {

using CapturedOp = std::function<void()>;

// Whether the calling thread is capturing.
bool Capturing();
// Appends `op` to the calling thread's capture. Aborts when it is not capturing.
void Record(CapturedOp op);
// Starts a capture on the calling thread. Aborts when one is already open (cudaStreamBeginCapture
// on a capturing stream is an error too).
void BeginCapture();
// Ends the calling thread's capture and returns what it recorded, in order. Aborts when none is
// open.
std::vector<CapturedOp> EndCapture();
// Aborts naming `what` when the calling thread is capturing: for operations a CUDA graph cannot
// hold (synchronous copies, synchronisation, allocation).
void ForbidWhileCapturing(const char* what);

}  // namespace emu

#endif  // CUDA_EMU_CAPTURE_H_
