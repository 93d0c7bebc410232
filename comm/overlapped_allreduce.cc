// OverlappedAllReducer: buckets of final gradients, all-reduced on a thread of their own.
#include "comm/overlapped_allreduce.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"

namespace comm {

std::vector<FloatSpan> MergeSpans(std::vector<FloatSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const FloatSpan& a, const FloatSpan& b) { return a.offset < b.offset; });
  std::vector<FloatSpan> out;
  for (const FloatSpan& s : spans) {
    if (s.count <= 0) continue;
    if (!out.empty() && out.back().offset + out.back().count == s.offset) {
      out.back().count += s.count;
    } else {
      out.push_back(s);
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<OverlappedAllReducer>> OverlappedAllReducer::Make(MpiWorld* world,
                                                                                  int64_t bucket_bytes) {
  if (bucket_bytes < 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("bucket size ", bucket_bytes, " bytes is invalid: at least one float (4 bytes)"));
  }
  if (!world->thread_serialized()) {
    return absl::FailedPreconditionError(
        "overlapping the all-reduce with backward needs MPI_THREAD_SERIALIZED, which this MPI did not grant: "
        "run with --overlap=false");
  }
  return std::unique_ptr<OverlappedAllReducer>(new OverlappedAllReducer(world, bucket_bytes));
}

OverlappedAllReducer::OverlappedAllReducer(MpiWorld* world, int64_t bucket_bytes)
    : world_(world), bucket_bytes_(bucket_bytes), watchdog_(world->NewWatchdog("communication thread")) {
  thread_ = std::thread([this] { Loop(); });
}

OverlappedAllReducer::~OverlappedAllReducer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void OverlappedAllReducer::Begin(float* buffer, float scale, int step) {
  std::lock_guard<std::mutex> lock(mu_);
  buffer_ = buffer;
  scale_ = scale;
  step_ = step;
  error_ = absl::OkStatus();
  busy_s_ = 0;
  buckets_ = 0;
  floats_ = 0;
  open_.clear();
  open_floats_ = 0;
}

void OverlappedAllReducer::QueueOpenBucket() {
  if (open_.empty()) return;
  queue_.push_back(std::move(open_));
  open_.clear();
  open_floats_ = 0;
  ++in_flight_;
  cv_.notify_all();
}

void OverlappedAllReducer::Ready(const std::vector<FloatSpan>& spans) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const FloatSpan& s : spans) {
    open_.push_back(s);
    open_floats_ += s.count;
  }
  if (open_floats_ * 4 >= bucket_bytes_) QueueOpenBucket();
}

absl::Status OverlappedAllReducer::Finish() {
  std::unique_lock<std::mutex> lock(mu_);
  QueueOpenBucket();
  cv_.wait(lock, [this] { return in_flight_ == 0; });
  return error_;
}

void OverlappedAllReducer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_ && queue_.empty()) return;
    std::vector<FloatSpan> bucket = MergeSpans(std::move(queue_.front()));
    queue_.pop_front();
    float* const buffer = buffer_;
    const float scale = scale_;
    const int step = step_;
    const bool failed = !error_.ok();
    lock.unlock();
    absl::Status status = absl::OkStatus();
    const auto t0 = std::chrono::steady_clock::now();
    int64_t floats = 0;
    for (const FloatSpan& s : bucket) {
      if (failed || !status.ok()) break;  // after an error: drain the queue, send nothing more
      status = world_->AllreduceSumFloats(
          buffer + s.offset, s.count, watchdog_.get(),
          absl::StrCat("step ", step, ": MPI_Allreduce of a gradient bucket (", s.count, " floats, overlapped)"));
      if (status.ok() && scale != 1.0f) {
        float* p = buffer + s.offset;
        for (int64_t i = 0; i < s.count; ++i) p[i] *= scale;
      }
      floats += s.count;
    }
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lock.lock();
    if (error_.ok() && !status.ok()) error_ = status;
    busy_s_ += sec;
    buckets_ += failed ? 0 : 1;
    floats_ += floats;
    --in_flight_;
    cv_.notify_all();
  }
}

}  // namespace comm
