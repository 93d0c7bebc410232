// The run context names this machine and build: the fields tools/gate keys baselines on.
#include "sysinfo/run_context.h"

#include <regex>

#include "gtest/gtest.h"
#include "sysinfo/build_info.h"
#include "sysinfo/cpu_info.h"

namespace sysinfo {
namespace {

TEST(RunContext, HasEveryKeyField) {
  CudaInventory none;
  none.reason = "test: no device";
  nlohmann::json c = RunContext(none);
  EXPECT_EQ(c["format"], kRunContextFormat);
  for (const char* k :
       {"vendor", "model_name", "family", "model", "stepping", "isa_level", "logical_cpus", "memory_gib"}) {
    EXPECT_TRUE(c["cpu"].contains(k)) << k;
  }
  EXPECT_GT(c["cpu"]["logical_cpus"].get<int>(), 0);
  EXPECT_GT(c["cpu"]["memory_gib"].get<double>(), 0);
  ASSERT_TRUE(c["gemm"].is_array());
  ASSERT_EQ(c["gemm"].size(), 2u);
  EXPECT_EQ(c["gemm"][0]["name"], "oneDNN");
  EXPECT_EQ(c["gemm"][1]["name"], "OpenBLAS");
  for (const nlohmann::json& g : c["gemm"]) {
    EXPECT_FALSE(g["kernel"].get<std::string>().empty()) << g;
    EXPECT_FALSE(g["version"].get<std::string>().empty()) << g;
  }
  EXPECT_EQ(c["gpu"]["name"], "none");
  EXPECT_EQ(c["gpu"]["count"], 0);
  EXPECT_EQ(c["gpu"]["reason"], "test: no device");
  for (const char* k : {"commit", "compiler", "compilation_mode", "asserts", "target_isa"}) {
    EXPECT_TRUE(c["build"].contains(k)) << k;
  }
  EXPECT_TRUE(
      std::regex_match(c["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << c["date"];
}

TEST(RunContext, CpuSignatureIsRead) {
  // Every x86 Linux kernel reports vendor, family, model and stepping in /proc/cpuinfo.
  CpuInfo cpu = ReadCpuInfo();
  EXPECT_NE(cpu.vendor, "unknown");
  EXPECT_GE(cpu.family, 0);
  EXPECT_GE(cpu.model_number, 0);
  EXPECT_GE(cpu.stepping, 0);
  EXPECT_FALSE(cpu.IsaLevel().empty());
  EXPECT_GT(cpu.memory_bytes, 0);
}

TEST(RunContext, IsaLevelOrder) {
  CpuInfo c;
  EXPECT_EQ(c.IsaLevel(), "SSE");
  c.avx2 = true;
  EXPECT_EQ(c.IsaLevel(), "AVX2");
  c.avx512f = true;
  EXPECT_EQ(c.IsaLevel(), "AVX-512");
  c.avx512_bf16 = true;
  EXPECT_EQ(c.IsaLevel(), "AVX512-BF16");
  c.amx = true;
  EXPECT_EQ(c.IsaLevel(), "AMX");
}

TEST(BuildInfo, StampedCommitLooksLikeOne) {
  // Built inside the git checkout, the workspace status stamps a 40-hex SHA (+dirty); outside
  // one it says "unknown". Either way never empty.
  BuildInfo b = GetBuildInfo();
  EXPECT_TRUE(std::regex_match(b.commit, std::regex(R"([0-9a-f]{40}(\+dirty)?|unknown)"))) << b.commit;
  EXPECT_FALSE(b.compiler.empty());
  EXPECT_TRUE(b.compilation_mode == "opt" || b.compilation_mode == "dbg" || b.compilation_mode == "fastbuild")
      << b.compilation_mode;
}

TEST(RunContext, DescribeNamesCpuAndGemm) {
  CudaInventory none;
  std::string d = DescribeRunContext(RunContext(none));
  EXPECT_NE(d.find("family"), std::string::npos) << d;
  EXPECT_NE(d.find("OpenBLAS"), std::string::npos) << d;
  EXPECT_NE(d.find("oneDNN"), std::string::npos) << d;
  EXPECT_NE(d.find("no GPU"), std::string::npos) << d;
}

}  // namespace
}  // namespace sysinfo
