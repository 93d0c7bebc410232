// MpiWorld: MPI set-up, collectives with errors as absl::Status, and the watchdog.
#include "comm/mpi_world.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "comm/launch_check.h"
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

void Watchdog::SetExplainer(std::function<std::string(double)> explain, double explain_s) {
  std::lock_guard<std::mutex> lock(mu_);
  explain_ = std::move(explain);
  explain_s_ = explain_s;
}

void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    const auto deadline = deadline_;
    // The explainer's time comes out of the deadline (at most a quarter of it).
    const double explain_s = explain_ ? std::min(explain_s_, seconds_ / 4) : 0;
    const auto fire = deadline - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(explain_s));
    if (cv_.wait_until(lock, fire) == std::cv_status::timeout && armed_ && !stop_ && deadline_ == deadline) {
      std::string why;
      if (explain_) {
        auto explain = explain_;
        lock.unlock();
        why = explain(explain_s);
        lock.lock();
        if (!armed_ || stop_ || deadline_ != deadline) continue;  // it finished meanwhile
      }
      std::fprintf(stderr,
                   "%s: error: %s did not finish within %.1f s (--timeout_s): another rank "
                   "probably died or hung%s%s; exiting\n",
                   prefix_.c_str(), what_.c_str(), seconds_, why.empty() ? "" : "; ", why.c_str());
      std::fflush(stderr);
      std::_Exit(harness::kExitTimeout);
    }
  }
}

namespace {

bool g_initialised = false;
bool g_thread_serialized = false;
constexpr double kProbeSeconds = 2.0;  // a timed-out rank's connects to the other hosts

// Runs a collective under a deadline: the world's watchdog, or another thread's.
class Deadline {
 public:
  Deadline(MpiWorld* w, const std::string& what, Watchdog* watchdog = nullptr)
      : wd_(watchdog != nullptr ? watchdog : &w->watchdog()) {
    wd_->Arm(what, w->timeout_s());
  }
  ~Deadline() { wd_->Disarm(); }

 private:
  Watchdog* wd_;
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
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      return absl::InternalError(MpiErrorMessage("MPI_Init_thread", rc, __FILE__, __LINE__));
    g_initialised = true;
    g_thread_serialized = provided >= MPI_THREAD_SERIALIZED;
  }
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  std::unique_ptr<MpiWorld> w(new MpiWorld());
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_rank(MPI_COMM_WORLD, &w->rank_));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_size(MPI_COMM_WORLD, &w->size_));
  // Before any collective: a singleton among others would wait for no one, or forever.
  if (auto s = CheckLaunchedWorldSize(w->size_, w->rank_, [](const char* v) { return std::getenv(v); }); !s.ok())
    return s;
  w->thread_serialized_ = g_thread_serialized;
  MPI_Comm local;
  COMM_MPI_RETURN_IF_ERROR(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank_, MPI_INFO_NULL, &local));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_rank(local, &w->local_rank_));
  COMM_MPI_RETURN_IF_ERROR(MPI_Comm_size(local, &w->local_size_));
  MPI_Comm_free(&local);
  w->timeout_s_ = timeout_s;
  char name[MPI_MAX_PROCESSOR_NAME];
  int name_len = 0;
  COMM_MPI_RETURN_IF_ERROR(MPI_Get_processor_name(name, &name_len));
  const std::string host(name, name_len);
  w->watchdog_ = std::make_unique<Watchdog>(absl::StrCat("rank ", w->rank_, " (host ", host, ")"));
  auto hosts = w->AllgatherStrings(host);
  if (!hosts.ok()) return hosts.status();
  w->hosts_ = std::move(*hosts);
  // The host probe: a rank that cannot open one still runs; its timeouts just name no host.
  auto probe = HostProbe::Listen(host);
  auto probes = w->AllgatherStrings(probe.ok() ? probe->description() : absl::StrCat("host=", host));
  if (!probes.ok()) return probes.status();
  w->probes_ = std::move(*probes);
  if (probe.ok()) w->probe_ = std::make_unique<HostProbe>(std::move(*probe));
  if (w->num_hosts() > 1) w->ExplainTimeouts(w->watchdog_.get());
  world = w.release();
  return world;
}

void MpiWorld::ExplainTimeouts(Watchdog* watchdog) const {
  if (num_hosts() < 2) return;
  const std::vector<std::string> probes = probes_;
  const int rank = rank_;
  watchdog->SetExplainer(
      [probes, rank](double budget_s) { return UnreachableHosts(probes, rank, budget_s); }, kProbeSeconds);
}

std::unique_ptr<Watchdog> MpiWorld::NewWatchdog(const std::string& thread) const {
  auto wd = std::make_unique<Watchdog>(absl::StrCat("rank ", rank_, " (host ", host(), ") ", thread));
  ExplainTimeouts(wd.get());
  return wd;
}

int MpiWorld::num_hosts() const {
  return static_cast<int>(std::set<std::string>(hosts_.begin(), hosts_.end()).size());
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

absl::Status MpiWorld::AllreduceSumFloats(float* data, int64_t n, Watchdog* watchdog, const std::string& what) {
  if (auto s = CountFits(n, "MPI_Allreduce"); !s.ok()) return s;
  Deadline d(this, what.empty() ? absl::StrCat("MPI_Allreduce of ", n, " floats") : what, watchdog);
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
