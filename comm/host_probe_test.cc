// UnreachableHosts over loopback only: a host whose listener answers, one whose port is closed.
#include "comm/host_probe.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace comm {
namespace {

TEST(HostProbe, DescribesItself) {
  auto p = HostProbe::Listen("hostA");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->description().rfind("host=hostA port=", 0), 0u) << p->description();
  EXPECT_NE(p->description().find(" addrs="), std::string::npos);
}

TEST(HostProbe, NamesTheHostThatDoesNotAnswerOnly) {
  auto live = HostProbe::Listen("live");
  ASSERT_TRUE(live.ok()) << live.status();
  std::string port = live->description().substr(live->description().find("port=") + 5);
  port = port.substr(0, port.find(' '));
  std::string closed_port;
  {
    auto gone = HostProbe::Listen("gone");  // its port closes at the end of this scope
    ASSERT_TRUE(gone.ok());
    closed_port = gone->description().substr(gone->description().find("port=") + 5);
    closed_port = closed_port.substr(0, closed_port.find(' '));
  }
  const std::vector<std::string> described = {
      "host=me port=1 addrs=",
      "host=live port=" + port + " addrs=127.0.0.1",
      "host=gone port=" + closed_port + " addrs=127.0.0.1",
      "host=gone port=" + closed_port + " addrs=127.0.0.1",
      "host=me port=1 addrs=",  // my own host's other rank: never probed
  };
  const std::string text = UnreachableHosts(described, 0, 2.0);
  EXPECT_NE(text.find("gone (ranks 2, 3; 127.0.0.1: Connection refused)"), std::string::npos) << text;
  EXPECT_EQ(text.find("live"), std::string::npos) << text;
  EXPECT_EQ(text.find("own link"), std::string::npos) << text;
  // Every other host silent: the message says this host's own link is the likely one.
  const std::string all = UnreachableHosts({described[0], described[2], "host=other port=" + closed_port + " addrs=127.0.0.1"}, 0, 2.0);
  EXPECT_NE(all.find("own link is probably down"), std::string::npos) << all;
  // Every host answered, or no other host: nothing to say.
  EXPECT_EQ(UnreachableHosts({described[0], described[1]}, 0, 2.0), "");
  EXPECT_EQ(UnreachableHosts({described[0], described[4]}, 1, 2.0), "");
}

}  // namespace
}  // namespace comm
