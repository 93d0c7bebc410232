// HostProbe: a listening socket per rank, and a bounded connect to every other host.
#include "comm/host_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace comm {
namespace {

std::vector<std::string> MyAddresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_LOOPBACK) || !(a->ifa_flags & IFF_UP)) continue;
    char text[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) out.push_back(text);
  }
  freeifaddrs(list);
  return out;
}

struct Described {
  std::string host;
  int port = 0;
  std::vector<std::string> addrs;
};

Described Parse(const std::string& text) {
  Described d;
  for (absl::string_view field : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(field, absl::MaxSplits('=', 1));
    if (kv.first == "host") d.host = kv.second;
    if (kv.first == "port" && !absl::SimpleAtoi(kv.second, &d.port)) d.port = 0;
    if (kv.first == "addrs") d.addrs = absl::StrSplit(kv.second, ',', absl::SkipEmpty());
  }
  return d;
}

}  // namespace

absl::StatusOr<HostProbe> HostProbe::Listen(const std::string& host) {
  HostProbe p;
  p.fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (p.fd_ < 0) return absl::InternalError(absl::StrCat("host probe: socket: ", std::strerror(errno)));
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  any.sin_port = 0;
  socklen_t len = sizeof(any);
  if (bind(p.fd_, reinterpret_cast<sockaddr*>(&any), sizeof(any)) != 0 || listen(p.fd_, 64) != 0 ||
      getsockname(p.fd_, reinterpret_cast<sockaddr*>(&any), &len) != 0) {
    return absl::InternalError(absl::StrCat("host probe: bind/listen: ", std::strerror(errno)));
  }
  p.description_ = absl::StrCat("host=", host, " port=", ntohs(any.sin_port), " addrs=",
                                absl::StrJoin(MyAddresses(), ","));
  return p;
}

HostProbe::HostProbe(HostProbe&& other) noexcept : fd_(other.fd_), description_(std::move(other.description_)) {
  other.fd_ = -1;
}

HostProbe::~HostProbe() {
  if (fd_ >= 0) close(fd_);
}

std::string UnreachableHosts(const std::vector<std::string>& described, int me, double budget_s) {
  if (me < 0 || me >= static_cast<int>(described.size())) return "";
  const Described mine = Parse(described[me]);
  const std::set<std::string> my_addrs(mine.addrs.begin(), mine.addrs.end());
  // Other hosts by name: their ranks, address, port (one rank's listener per host is enough).
  struct Target {
    std::vector<int> ranks;
    std::vector<std::string> addrs;
    int port = 0;
    bool answered = false;
    std::string error;  // the last connect error, "" for no answer at all
  };
  std::map<std::string, Target> hosts;
  for (int r = 0; r < static_cast<int>(described.size()); ++r) {
    const Described d = Parse(described[r]);
    if (d.host.empty() || d.host == mine.host) continue;
    Target& t = hosts[d.host];
    t.ranks.push_back(r);
    if (t.port == 0 && d.port > 0) {
      t.port = d.port;
      for (const std::string& a : d.addrs) {
        if (!my_addrs.count(a)) t.addrs.push_back(a);
      }
    }
  }
  if (hosts.empty()) return "";
  // Non-blocking connects to every address at once; poll until all settle or the budget ends.
  struct Attempt {
    int fd;
    std::string host;
  };
  std::vector<Attempt> attempts;
  for (auto& [name, t] : hosts) {
    for (const std::string& a : t.addrs) {
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(static_cast<uint16_t>(t.port));
      if (inet_pton(AF_INET, a.c_str(), &sa.sin_addr) != 1) continue;
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;
      const int rc = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
      if (rc == 0) {
        t.answered = true;
        close(fd);
      } else if (errno == EINPROGRESS) {
        attempts.push_back({fd, name});
      } else {
        t.error = std::strerror(errno);
        close(fd);
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(budget_s);
  while (!attempts.empty()) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    std::vector<pollfd> fds;
    for (const Attempt& a : attempts) fds.push_back({a.fd, POLLOUT, 0});
    if (poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR) break;
    std::vector<Attempt> pending;
    for (size_t i = 0; i < attempts.size(); ++i) {
      if (fds[i].revents == 0) {
        pending.push_back(attempts[i]);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      if (getsockopt(attempts[i].fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0) {
        if (err == 0)
          hosts[attempts[i].host].answered = true;
        else
          hosts[attempts[i].host].error = std::strerror(err);
      }
      close(attempts[i].fd);
    }
    attempts.swap(pending);
  }
  for (const Attempt& a : attempts) close(a.fd);
  std::vector<std::string> silent;
  bool all_unroutable = true;
  for (const auto& [name, t] : hosts) {
    if (t.answered) continue;
    all_unroutable = all_unroutable && t.error == std::strerror(ENETUNREACH);
    silent.push_back(absl::StrCat(name, " (rank", t.ranks.size() > 1 ? "s " : " ", absl::StrJoin(t.ranks, ", "),
                                  t.addrs.empty() ? "" : "; ", absl::StrJoin(t.addrs, ", "), ": ",
                                  t.error.empty() ? "no answer" : t.error, ")"));
  }
  if (silent.empty()) return "";
  const std::string text =
      absl::StrCat("unreachable from ", mine.host, " (a TCP connect within ", budget_s, " s): ", absl::StrJoin(silent, ", "));
  if (silent.size() == hosts.size() && (all_unroutable || hosts.size() > 1)) {
    return absl::StrCat(text, "; no other host answered", all_unroutable ? " and there is no route to them" : "",
                        ": this host's (", mine.host, ") own link is probably down");
  }
  return text;
}

}  // namespace comm
