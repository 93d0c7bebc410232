// Gradient all-reduce in buckets, overlapped with backward, as PyTorch's DDP does it: the model
// reports gradients as they become final (model/grad_ready.h), in reverse layer order; once a
// bucket's worth (--bucket_mb) has gathered, a communication thread all-reduces it
// (MPI_Allreduce, sum, then x scale) while the main thread goes on with backward. After
// backward, Finish queues what is left and waits: only that wait is exposed in the step.
//
// Threads: the communication thread makes every MPI call between Begin and Finish, the main
// thread none (MPI_THREAD_SERIALIZED). It has its own watchdog (mpi_world.h), so a peer that
// dies mid-bucket ends this rank within --timeout_s, naming the hosts that do not answer.
#ifndef COMM_OVERLAPPED_ALLREDUCE_H_
#define COMM_OVERLAPPED_ALLREDUCE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "comm/mpi_world.h"

namespace comm {

struct FloatSpan {
  int64_t offset = 0;  // floats from the buffer's start
  int64_t count = 0;
};

// Merges spans that touch (consecutive layers' slices of one stacked tensor), sorted by offset.
std::vector<FloatSpan> MergeSpans(std::vector<FloatSpan> spans);

class OverlappedAllReducer {
 public:
  // Errors: bucket_bytes < 4, or MPI without MPI_THREAD_SERIALIZED.
  static absl::StatusOr<std::unique_ptr<OverlappedAllReducer>> Make(MpiWorld* world, int64_t bucket_bytes);
  ~OverlappedAllReducer();

  // A step's all-reduce starts: buffer (host memory), x scale after the sum, its step number.
  void Begin(float* buffer, float scale, int step);
  // These spans are final: added to the open bucket, queued when it holds >= bucket_bytes.
  void Ready(const std::vector<FloatSpan>& spans);
  // Queues the open bucket and waits for every queued one; the first error, if any.
  absl::Status Finish();

  // Of the last Finish: seconds the communication thread spent in all-reduces (the total
  // communication time, overlapped or not), buckets sent, floats all-reduced.
  double busy_seconds() const { return busy_s_; }
  int buckets() const { return buckets_; }
  int64_t floats() const { return floats_; }
  int64_t bucket_bytes() const { return bucket_bytes_; }

 private:
  OverlappedAllReducer(MpiWorld* world, int64_t bucket_bytes);
  void Loop();
  void QueueOpenBucket();  // mu_ held

  MpiWorld* world_;
  const int64_t bucket_bytes_;
  std::unique_ptr<Watchdog> watchdog_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<FloatSpan>> queue_;
  std::vector<FloatSpan> open_;
  int64_t open_floats_ = 0;
  int in_flight_ = 0;  // buckets queued or being reduced
  bool stop_ = false;
  float* buffer_ = nullptr;
  float scale_ = 1;
  int step_ = 0;
  absl::Status error_;
  double busy_s_ = 0;
  int buckets_ = 0;
  int64_t floats_ = 0;
  std::thread thread_;
};

}  // namespace comm

#endif  // COMM_OVERLAPPED_ALLREDUCE_H_
