// cudaEvent implementations of StepClock and TraceTimer, recorded on the stream the CUDA model
// issues its work to: the calling thread's default stream, cudaStreamPerThread
// (model/cuda/model_stream.cuh says why; the events must be on that stream to be ordered with
// the model's kernels and graph launches).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "macro/step_clock.h"

#define MACRO_CUDA_CHECK(call)                                                                \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "CUDA error: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorString(err_));                                                 \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace macro {
namespace {

// The CUDA model's stream (model::cuda::ModelStream(), not visible from here).
const cudaStream_t kModelStream = cudaStreamPerThread;

// Events are reused across steps: a pool grows to the largest number needed.
class EventPool {
 public:
  ~EventPool() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  cudaEvent_t Get(size_t i) {
    while (events_.size() <= i) {
      cudaEvent_t e;
      MACRO_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return events_[i];
  }

 private:
  std::vector<cudaEvent_t> events_;
};

class CudaStepClock : public StepClock {
 public:
  void Mark() override { MACRO_CUDA_CHECK(cudaEventRecord(pool_.Get(used_++), kModelStream)); }
  std::vector<double> Seconds() override {
    std::vector<double> out;
    if (used_ > 0) MACRO_CUDA_CHECK(cudaEventSynchronize(pool_.Get(used_ - 1)));
    for (size_t i = 1; i < used_; ++i) {
      float ms = 0;
      MACRO_CUDA_CHECK(cudaEventElapsedTime(&ms, pool_.Get(i - 1), pool_.Get(i)));
      out.push_back(ms * 1e-3);
    }
    used_ = 0;
    return out;
  }

 private:
  EventPool pool_;
  size_t used_ = 0;
};

class CudaTraceTimer : public TraceTimer {
 public:
  CudaTraceTimer() {
    MACRO_CUDA_CHECK(cudaEventCreate(&origin_));
    MACRO_CUDA_CHECK(cudaEventRecord(origin_, kModelStream));
  }
  ~CudaTraceTimer() override { cudaEventDestroy(origin_); }
  void Begin(std::string_view op) override { Record(true, op); }
  void End() override { Record(false, ""); }

 private:
  void Clear() override { marks_.clear(); }
  struct Mark {
    bool begin;
    std::string op;
    size_t event;
  };
  void Record(bool begin, std::string_view op) {
    size_t i = marks_.size();
    MACRO_CUDA_CHECK(cudaEventRecord(pool_.Get(i), kModelStream));
    marks_.push_back({begin, std::string(op), i});
  }
  void Replay(OpTrace* t) override {
    if (marks_.empty()) return;
    MACRO_CUDA_CHECK(cudaEventSynchronize(pool_.Get(marks_.back().event)));
    for (const Mark& m : marks_) {
      float ms = 0;
      MACRO_CUDA_CHECK(cudaEventElapsedTime(&ms, origin_, pool_.Get(m.event)));
      if (m.begin)
        t->Begin(m.op, "op", ms * 1e3);
      else
        t->End(ms * 1e3);
    }
  }
  cudaEvent_t origin_;
  EventPool pool_;
  std::vector<Mark> marks_;
};

}  // namespace

std::unique_ptr<StepClock> MakeCudaStepClock() { return std::make_unique<CudaStepClock>(); }
std::unique_ptr<TraceTimer> MakeCudaTraceTimer() { return std::make_unique<CudaTraceTimer>(); }

}  // namespace macro
