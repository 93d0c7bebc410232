// The MPI side of ddp_step: the world (rank, size, local rank), its collectives as absl::Status,
// and a watchdog so a rank never waits forever on a rank that died or hung.
//
// MPI_COMM_WORLD uses MPI_ERRORS_RETURN, so a failed call becomes an error naming the call,
// file, line and MPI's own message (COMM_MPI_RETURN_IF_ERROR) instead of an abort without words.
// A rank that dies makes mpirun end the job; one that hangs is caught by the watchdog: every
// collective runs under a deadline (--timeout_s), after which the rank prints which collective
// it was waiting in and exits (harness::kExitTimeout, 5), and mpirun ends the rest.
#ifndef COMM_MPI_WORLD_H_
#define COMM_MPI_WORLD_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "comm/host_probe.h"

namespace comm {

// "MPI_Allreduce(...) failed at file:line: MPI_ERR_... message".
std::string MpiErrorMessage(const char* call, int code, const char* file, int line);

#define COMM_MPI_RETURN_IF_ERROR(call)                                                                \
  do {                                                                                                \
    int comm_mpi_rc_ = (call);                                                                        \
    if (comm_mpi_rc_ != 0) {                                                                          \
      return ::absl::InternalError(::comm::MpiErrorMessage(#call, comm_mpi_rc_, __FILE__, __LINE__)); \
    }                                                                                                 \
  } while (0)

// Ends the process (std::_Exit(harness::kExitTimeout): 5) when an armed deadline passes. One per process.
class Watchdog {
 public:
  explicit Watchdog(std::string prefix);  // prefix of the message: "ddp_step: rank 1"
  ~Watchdog();
  // Starts a deadline of `seconds` (<= 0: none) for `what` ("MPI_Allreduce of 124M gradients").
  void Arm(const std::string& what, double seconds);
  void Disarm();
  // Called when a deadline passes, before the exit: a sentence for the message (which hosts do
  // not answer). It gets min(explain_s, a quarter of the deadline) seconds, which come out of
  // the deadline, so the process still ends within `seconds` of Arm.
  void SetExplainer(std::function<std::string(double budget_s)> explain, double explain_s);

 private:
  void Loop();
  std::function<std::string(double)> explain_;
  double explain_s_ = 0;
  std::string prefix_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, stop_ = false;
  std::string what_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

class MpiWorld {
 public:
  // MPI_Init (once per process, MPI_THREAD_SERIALIZED: a communication thread may make the MPI
  // calls while the main thread makes none); sets MPI_ERRORS_RETURN; checks the world size
  // against the launcher's (launch_check.h: a mismatch is FailedPrecondition); finds the local
  // rank (ranks on this node, MPI_Comm_split_type SHARED) and every rank's host (its processor
  // name); opens the host probe (host_probe.h) that a timed-out collective's message uses to
  // name the hosts that do not answer. timeout_s bounds every collective below.
  static absl::StatusOr<MpiWorld*> Init(int* argc, char*** argv, double timeout_s);
  // MPI_Finalize. After an error, call Abort instead.
  static void Finalize();
  // MPI_Abort(MPI_COMM_WORLD, code): ends every rank.
  [[noreturn]] static void Abort(int code);

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  // MPI_Get_processor_name of rank r (index = rank); host() is this rank's.
  const std::string& host() const { return hosts_[rank_]; }
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Distinct hosts in the world.
  int num_hosts() const;
  // MPI granted MPI_THREAD_SERIALIZED or more: another thread may call MPI while this one does not.
  bool thread_serialized() const { return thread_serialized_; }
  double timeout_s() const { return timeout_s_; }
  void set_timeout_s(double s) { timeout_s_ = s; }
  Watchdog& watchdog() { return *watchdog_; }

  // Every rank's string (index = rank). Strings may differ in length.
  absl::StatusOr<std::vector<std::string>> AllgatherStrings(const std::string& mine);
  // Every rank's values; each rank gives the same count.
  absl::StatusOr<std::vector<double>> AllgatherDoubles(const std::vector<double>& mine);
  // In-place sum over ranks of n floats (host memory). Under `watchdog` (another thread's, made
  // by NewWatchdog) and `what` when given, else under the world's.
  absl::Status AllreduceSumFloats(float* data, int64_t n, Watchdog* watchdog = nullptr,
                                  const std::string& what = "");
  // A watchdog for another thread that makes MPI calls (prefix "rank R (host H) THREAD"), whose
  // timeouts name the unreachable hosts as the world's do.
  std::unique_ptr<Watchdog> NewWatchdog(const std::string& thread) const;
  // Rank 0's bytes to every rank.
  absl::Status BroadcastBytes(void* data, int64_t n);
  // In place: rank 0's floats to every rank.
  absl::Status BroadcastFloats(float* data, int64_t n);
  absl::Status Barrier();

 private:
  MpiWorld() = default;
  // Timeouts of `watchdog` name the hosts that do not answer (a world of several hosts).
  void ExplainTimeouts(Watchdog* watchdog) const;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool thread_serialized_ = false;
  std::vector<std::string> hosts_, probes_;
  std::unique_ptr<HostProbe> probe_;
  double timeout_s_ = 0;
  std::unique_ptr<Watchdog> watchdog_;
};

// Every rank's description must equal rank 0's; else an error that names the ranks that
// differ and both descriptions (collective: every rank gets the same answer).
absl::Status CheckSameOnAllRanks(MpiWorld* world, const std::string& what, const std::string& mine);

}  // namespace comm

#endif  // COMM_MPI_WORLD_H_
