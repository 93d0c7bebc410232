// Which hosts a rank can still reach: for the message of a rank whose collective timed out.
//
// Each rank listens on a TCP port (any address, an ephemeral port) and never accepts: the
// kernel completes a peer's handshake on its own, so a connect answers while the host's network
// is up, whatever the rank is doing. At start every rank shares "host, port, addresses"; when a
// collective times out, the rank tries each other host within a small budget and names those
// that did not answer (and says so when none did: then its own link is the likely one down).
#ifndef COMM_HOST_PROBE_H_
#define COMM_HOST_PROBE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace comm {

class HostProbe {
 public:
  // Listens on a new socket. host: this rank's host name (MPI_Get_processor_name).
  static absl::StatusOr<HostProbe> Listen(const std::string& host);
  HostProbe(HostProbe&& other) noexcept;
  HostProbe& operator=(HostProbe&&) = delete;
  ~HostProbe();

  // "host=NAME port=P addrs=A,B" (this host's up, non-loopback IPv4 addresses).
  const std::string& description() const { return description_; }

 private:
  HostProbe() = default;
  int fd_ = -1;
  std::string description_;
};

// described[r]: rank r's description(). Tries every host other than described[me]'s (by name),
// each address of it that is not also one of mine, all at once, for at most budget_s seconds.
// Returns "" when every other host answered (or there is none), else a sentence naming the
// hosts that did not, with their ranks: "host1 (ranks 1, 3; 10.231.7.2) did not answer", or, when
// no other host answered, that this host's own link is probably down.
std::string UnreachableHosts(const std::vector<std::string>& described, int me, double budget_s);

}  // namespace comm

#endif  // COMM_HOST_PROBE_H_
