// MpiWorld: MPI set-up, collectives with errors as absl::Status, and the watchdog.
#include "comm/mpi_world.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/exit_codes.h"

namespace comm {

std::string MpiErrorMessage(const char* call, int code, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  return absl::StrCat("MPI error: ", call, " failed at ", file, ":", line, ": ",
                      len > 0 ? std::string(text, len) : absl::StrCat("code ", code));
}

Watchdog::Watchdog(std::string prefix) : prefix_(std::move(prefix)) {
  thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::Arm(const std::string& what, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (seconds <= 0) {
    armed_ = false;
    return;
  }
  armed_ = true;
  what_ = what;
  seconds_ = seconds;
  deadline_ =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  cv_.notify_all();
}

void Watchdog::Disarm() {
  std::lock_guard<std::mutex> lock(mu_);
  armed_ = false;
}

void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    auto deadline = deadline_;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && armed_ && !stop_ &&
        deadline_ == deadline) {
      std::fprintf(stderr,
                   "%s: error: %s did not finish within %.1f s (--timeout_s): another rank "
                   "probably died or hung; exiting\n",
                   prefix_.c_str(), what_.c_str(), seconds_);
      std::fflush(stderr);
      std::_Exit(harness::kExitTimeout);
    }
  }
}

namespace {

bool g_initialised = false;

// Runs a collective under the world's deadline.
class Deadline {
 public:
  Deadline(MpiWorld* w, const std::string& what) : w_(w) { w_->watchdog().Arm(what, w_->timeout_s()); }
  ~Deadline() { w_->watchdog().Disarm(); }

 private:
  MpiWorld* w_;
};

absl::Status CountFits(int64_t n, const char* what) {
  if (n >= 0 && n <= std::numeric_limits<int>::max()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": count ", n, " is outside [0, ", std::numeric_limits<int>::max(), "]"));
}

}  // namespace

absl::StatusOr<MpiWorld*> MpiWorld::Init(int* argc, char*** argv, double timeout_s) {
  static MpiWorld* world = nullptr;
  if (world != nullptr) return world;
  if (!g_initialised) {
    int provided = 0;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
      return absl::InternalError(MpiErrorMessage("MPI_Init_thread", rc, __FILE__, __LINE__));
    g_initialised = true;
  }
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  std::unique_ptr<MpiWorld> w(new MpiWorld());
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_rank(MPI_COMM_WORLD, &w->rank_));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_size(MPI_COMM_WORLD, &w->size_));
  MPI_Comm local;
  COMM_MPI_RETURN_IF_ERROR(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank_, MPI_INFO_NULL, &local));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_rank(local, &w->local_rank_));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_size(local, &w->local_size_));
  MPI_Comm_free(&local);
  w->timeout_s_ = timeout_s;
  w->watchdog_ = std::make_unique<Watchdog>(absl::StrCat("rank ", w->rank_));
  world = w.release();
  return world;
}

void MpiWorld::Finalize() {
  if (g_initialised) MPI_Finalize();
}

void MpiWorld::Abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

absl::StatusOr<std::vector<std::string>> MpiWorld::AllgatherStrings(const std::string& mine) {
  Deadline d(this, "MPI_Allgather of the ranks' descriptions");
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(size_);
  COMM_MPI_RETURN_IF_ERROR(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD));
  std::vector<int> displs(size_, 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(total, '\0');
  COMM_MPI_RETURN_IF_ERROR(MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                                          MPI_CHAR, MPI_COMM_WORLD));
  std::vector<std::string> out(size_);
  for (int r = 0; r < size_; ++r) out[r] = all.substr(displs[r], lens[r]);
  return out;
}

absl::StatusOr<std::vector<double>> MpiWorld::AllgatherDoubles(const std::vector<double>& mine) {
  Deadline d(this, "MPI_Allgather of per-rank figures");
  std::vector<double> out(mine.size() * size_);
  COMM_MPI_RETURN_IF_ERROR(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, out.data(),
                                         static_cast<int>(mine.size()), MPI_DOUBLE, MPI_COMM_WORLD));
  return out;
}

absl::Status MpiWorld::AllreduceSumFloats(float* data, int64_t n) {
  if (auto s = CountFits(n, "MPI_Allreduce"); !s.ok()) return s;
  Deadline d(this, absl::StrCat("MPI_Allreduce of ", n, " floats"));
  COMM_MPI_RETURN_IF_ERROR(
      MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  return absl::OkStatus();
}

absl::Status MpiWorld::BroadcastBytes(void* data, int64_t n) {
  if (auto s = CountFits(n, "MPI_Bcast"); !s.ok()) return s;
  Deadline d(this, absl::StrCat("MPI_Bcast of ", n, " bytes"));
  COMM_MPI_RETURN_IF_ERROR(MPI_Bcast(data, static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD));
  return absl::OkStatus();
}

absl::Status MpiWorld::BroadcastFloats(float* data, int64_t n) {
  if (auto s = CountFits(n, "MPI_Bcast"); !s.ok()) return s;
  Deadline d(this, absl::StrCat("MPI_Bcast of ", n, " floats"));
  COMM_MPI_RETURN_IF_ERROR(MPI_Bcast(data, static_cast<int>(n), MPI_FLOAT, 0, MPI_COMM_WORLD));
  return absl::OkStatus();
}

absl::Status MpiWorld::Barrier() {
  Deadline d(this, "MPI_Barrier");
  COMM_MPI_RETURN_IF_ERROR(MPI_Barrier(MPI_COMM_WORLD));
  return absl::OkStatus();
}

absl::Status CheckSameOnAllRanks(MpiWorld* world, const std::string& what, const std::string& mine) {
  auto all = world->AllgatherStrings(mine);
  if (!all.ok()) return all.status();
  std::vector<std::string> differ;
  for (int r = 1; r < world->size(); ++r) {
    if ((*all)[r] != (*all)[0]) differ.push_back(absl::StrCat("rank ", r, ": ", (*all)[r]));
  }
  if (differ.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      what, " differs across ranks (every rank must run the same configuration): rank 0: ", (*all)[0], "; ",
      absl::StrJoin(differ, "; ")));
}

}  // namespace comm
