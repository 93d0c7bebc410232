// Machine keys from run contexts and the baseline file names they give.
#include "tools/gate_key.h"

#include "gtest/gtest.h"

namespace gate {
namespace {

using nlohmann::json;

json Context(const std::string& cpu, int cpus, const std::string& gpu, int gpus, const std::string& cuda) {
  return {{"num_cpus", cpus},
          {"mlbench",
           {{"cpu_model", cpu}, {"logical_cpus", cpus}, {"gpu_name", gpu}, {"gpu_count", gpus},
            {"cuda_runtime", cuda}, {"suite", "quick"}}}};
}

TEST(GateKeyTest, CpuOnlyMachineIgnoresTheToolkitVersion) {
  std::vector<std::string> warnings;
  absl::StatusOr<MachineKey> k = KeyFromContext(Context("AMD EPYC 7B13", 2, "none", 0, "13.0"), &warnings);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->Describe(), "AMD EPYC 7B13 x2 | no GPU | CUDA none");
  EXPECT_EQ(k->FileName("quick"), "AMD_EPYC_7B13_x2__no-GPU__CUDA-none__quick.json");
  EXPECT_TRUE(warnings.empty());
}

TEST(GateKeyTest, GpuMachine) {
  absl::StatusOr<MachineKey> k =
      KeyFromContext(Context("Intel(R) Xeon(R) Platinum 8480+", 16, "NVIDIA H200", 1, "13.0"), nullptr);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->Describe(), "Intel(R) Xeon(R) Platinum 8480+ x16 | NVIDIA H200 | CUDA 13.0");
  EXPECT_EQ(k->FileName("quick"), "Intel_R_Xeon_R_Platinum_8480_x16__NVIDIA_H200__CUDA-13.0__quick.json");
  absl::StatusOr<MachineKey> k8 = KeyFromContext(Context("X", 16, "NVIDIA H200", 8, "13.0"), nullptr);
  ASSERT_TRUE(k8.ok());
  EXPECT_EQ(k8->Describe(), "X x16 | 8x NVIDIA H200 | CUDA 13.0");
  EXPECT_NE(k8->FileName("quick"), k->FileName("quick"));
}

TEST(GateKeyTest, DifferentMachinesGetDifferentFiles) {
  auto a = KeyFromContext(Context("AMD EPYC", 2, "none", 0, "13.0"), nullptr);
  auto b = KeyFromContext(Context("AMD EPYC", 4, "none", 0, "13.0"), nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->FileName("quick"), b->FileName("quick"));
  EXPECT_NE(a->FileName("quick"), a->FileName("full"));
}

TEST(GateKeyTest, PlainGoogleBenchmarkContextIsGuessedWithAWarning) {
  std::vector<std::string> warnings;
  absl::StatusOr<MachineKey> k = KeyFromContext(json{{"num_cpus", 8}}, &warnings);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->Describe(), "unknown CPU x8 | no GPU | CUDA none");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(SuiteFromContext(json{{"num_cpus", 8}}), "default");
  EXPECT_EQ(SuiteFromContext(Context("A", 1, "none", 0, "none")), "quick");
}

TEST(GateKeyTest, WrongFieldTypesAreErrors) {
  json c = Context("AMD EPYC", 2, "none", 0, "13.0");
  c["mlbench"]["logical_cpus"] = "two";
  absl::StatusOr<MachineKey> k = KeyFromContext(c, nullptr);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("logical_cpus"), std::string::npos);
  c = Context("AMD EPYC", 2, "none", 0, "13.0");
  c["mlbench"].erase("gpu_name");
  EXPECT_FALSE(KeyFromContext(c, nullptr).ok());
}

TEST(GateKeyTest, Sanitize) {
  EXPECT_EQ(SanitizeFileComponent("a/b c"), "a_b_c");
  EXPECT_EQ(SanitizeFileComponent("../../etc/passwd"), "etc_passwd");
  EXPECT_EQ(SanitizeFileComponent("--x"), "x");
  EXPECT_EQ(SanitizeFileComponent("@@@"), "unknown");
  EXPECT_EQ(SanitizeFileComponent("CUDA-13.0"), "CUDA-13.0");
}

}  // namespace
}  // namespace gate
