// The host-memory pre-check: what fits passes, what does not is refused with the figures, and
// an address-space limit (RLIMIT_AS) lowers what is available.
#include "model/host_memory.h"

#include <sys/resource.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace model {
namespace {

TEST(HostMemoryTest, FitsOrIsRefusedWithTheFigures) {
  const HostMemory m = AvailableHostMemory();
  ASSERT_GT(m.bytes, 0) << "no /proc/meminfo here";
  EXPECT_TRUE(CheckHostMemory(1000, "a small run", "1 kB").ok());
  absl::Status big = CheckHostMemory(m.bytes + (int64_t{1} << 40), "a huge run", "weights 1 TB");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(big.message().find("not enough host memory for a huge run: needs "), std::string::npos) << big;
  EXPECT_NE(big.message().find("(weights 1 TB)"), std::string::npos) << big;
  EXPECT_NE(big.message().find(" available ("), std::string::npos) << big;
}

// This process's mapped address space (VmSize), bytes.
int64_t MappedBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoll(line.substr(7)) * 1024;
  }
  return -1;
}

TEST(HostMemoryTest, AddressSpaceLimitCounts) {
  const int64_t mapped = MappedBytes();
  ASSERT_GT(mapped, 0);
  if (mapped > (int64_t{64} << 30)) GTEST_SKIP() << "a sanitizer's shadow memory is mapped";
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  // 256 MiB above what is mapped now: less than MemAvailable on any machine that runs the tests.
  const rlim_t limit = static_cast<rlim_t>(mapped + (int64_t{256} << 20));
  if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < limit) GTEST_SKIP() << "a lower limit is set";
  struct rlimit lowered = old;
  lowered.rlim_cur = limit;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &lowered), 0);
  const HostMemory m = AvailableHostMemory();
  const absl::Status refused = CheckHostMemory(int64_t{512} << 20, "a 512 MiB run", "activations");
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old), 0);
  EXPECT_LE(m.bytes, int64_t{256} << 20);
  EXPECT_NE(m.what.find("address-space limit (RLIMIT_AS, ulimit -v)"), std::string::npos) << m.what;
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("address-space limit"), std::string::npos) << refused;
}

}  // namespace
}  // namespace model
