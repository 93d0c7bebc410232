// The one stream the CUDA model's work goes to: every kernel launch (MODEL_CUDA_LAUNCH in
// launch.cuh), every cuBLASLt call (gemm_cublaslt.cu), the memsets and copies of device_api.h,
// and the step clock's events (macro/step_clock_cuda.cu names the same handle).
//
// It is cudaStreamPerThread, the calling host thread's default stream, rather than a stream the
// model creates:
//  - a CUDA graph cannot be captured from the legacy default stream (stream 0): the runtime
//    refuses cudaStreamBeginCapture on cudaStreamLegacy (CUDA Runtime API, cudaStreamBeginCapture;
//    CUDA Programming Guide, "CUDA Graphs", stream capture), and the per-thread stream is
//    capturable;
//  - it needs no creation, ownership or destruction, exists on whichever device the thread has
//    made current (a DDP rank selects its own), and is the same handle in every file, including
//    code outside model/cuda that never sees the model (the step clock);
//  - it is a blocking stream: work on the legacy stream (NCCL's all-reduce in comm/nccl_cuda.cu
//    is issued there) still waits for the model's work and the model's next work waits for it,
//    exactly as when everything ran on stream 0. A non-blocking stream of our own would have
//    broken that ordering silently.
// The cost: everything the model issues must come from one host thread (true of gpt_step,
// gpt_decode and a DDP rank), and while a graph is being captured nothing may touch the legacy
// stream (the runtime reports cudaErrorStreamCaptureImplicit); the capture covers only the
// model's own forward, backward and optimizer.
#ifndef MODEL_CUDA_MODEL_STREAM_CUH_
#define MODEL_CUDA_MODEL_STREAM_CUH_

#include <cuda_runtime.h>

namespace model {
namespace cuda {

inline cudaStream_t ModelStream() { return cudaStreamPerThread; }

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_MODEL_STREAM_CUH_
