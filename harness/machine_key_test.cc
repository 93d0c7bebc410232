// MachineIdFromRunContext: tools/gate's key for the same run context (the hashes below are the
// ones `gate --update` put in its baseline file names for these contexts), what changes it and
// what does not, and the errors.
#include "harness/machine_key.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace harness {
namespace {

// A run context as sysinfo::RunContext() writes it: tools/gate/testdata/run_context_fixture.h's.
nlohmann::json Fixture() {
  return {{"format", "mlbench-run-context/1"},
          {"cpu",
           {{"vendor", "AuthenticAMD"},
            {"model_name", "AMD EPYC"},
            {"family", 25},
            {"model", 17},
            {"stepping", 1},
            {"isa_level", "AVX-512"},
            {"isa_flags", "AVX2 AVX-512F FMA"},
            {"logical_cpus", 2},
            {"physical_cores", 2},
            {"memory_gib", 24}}},
          {"gemm",
           {{{"name", "OpenBLAS"},
             {"version", "0.3.21"},
             {"kernel", "Haswell"},
             {"note", "forced by OPENBLAS_CORETYPE=Haswell"},
             {"threads", 1}}}},
          {"gpu",
           {{"name", "none"},
            {"count", 0},
            {"driver", "none"},
            {"runtime", "13.0"},
            {"cublas", "13.1.0"},
            {"nccl", "2.27.7"}}},
          {"build",
           {{"commit", "abc"},
            {"compiler", "g++ 12.2.0"},
            {"compilation_mode", "opt"},
            {"asserts", false},
            {"target_isa", "AVX-512"}}},
          {"date", "2026-11-30T00:00:00Z"}};
}

TEST(MachineKeyTest, TheGatesHashForTheSameRunContext) {
  absl::StatusOr<MachineId> id = MachineIdFromRunContext(Fixture());
  ASSERT_TRUE(id.ok()) << id.status();
  // gate --update of a run with this context wrote ..._x2__no-GPU__d3b80d36__default.json.
  EXPECT_EQ(id->hash, "d3b80d36");
  EXPECT_EQ(id->fields.at("cpu.family"), "25");
  EXPECT_EQ(id->fields.at("gemm.OpenBLAS"), "0.3.21 Haswell");
  EXPECT_EQ(id->fields.at("build.asserts"), "false");
  EXPECT_EQ(
      id->description,
      "AMD EPYC [AuthenticAMD family 25 model 17 stepping 1, AVX-512] x2, 24 GiB | OpenBLAS 0.3.21 Haswell | "
      "no GPU | opt build, g++ 12.2.0 | key d3b80d36");
  // memory_gib as RunContext writes it (std::round, a double): "23.0"; the gate's file said 0ca809c9.
  nlohmann::json rc = Fixture();
  rc["cpu"]["memory_gib"] = 23.0;
  id = MachineIdFromRunContext(rc);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->hash, "0ca809c9");
}

TEST(MachineKeyTest, TheCommitAndDateAreNotTheMachineButTheCpuAndBuildAre) {
  const std::string base = MachineIdFromRunContext(Fixture())->hash;
  nlohmann::json rc = Fixture();
  rc["build"]["commit"] = "def";
  rc["date"] = "2027-01-01T00:00:00Z";
  rc["cpu"]["physical_cores"] = 1;  // not in the key (logical_cpus is)
  EXPECT_EQ(MachineIdFromRunContext(rc)->hash, base);
  for (auto change : {+[](nlohmann::json& j) { j["cpu"]["model"] = 1; },
                      +[](nlohmann::json& j) { j["cpu"]["isa_level"] = "AVX2"; },
                      +[](nlohmann::json& j) { j["gemm"][0]["kernel"] = "SkylakeX"; },
                      +[](nlohmann::json& j) { j["build"]["compilation_mode"] = "dbg"; }}) {
    nlohmann::json other = Fixture();
    change(other);
    EXPECT_NE(MachineIdFromRunContext(other)->hash, base) << other.dump();
  }
  // With a GPU, its driver and libraries join the key.
  nlohmann::json gpu = Fixture();
  gpu["gpu"]["name"] = "NVIDIA H200";
  gpu["gpu"]["count"] = 1;
  absl::StatusOr<MachineId> g = MachineIdFromRunContext(gpu);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->fields.at("gpu.cublas"), "13.1.0");
  EXPECT_NE(g->description.find("1x NVIDIA H200 (driver none, CUDA 13.0)"), std::string::npos)
      << g->description;
}

TEST(MachineKeyTest, AMissingOrMistypedFieldIsNamed) {
  nlohmann::json rc = Fixture();
  rc["cpu"].erase("stepping");
  EXPECT_EQ(MachineIdFromRunContext(rc).status().message(), "run context field cpu.stepping is missing");
  rc = Fixture();
  rc["cpu"]["family"] = "25";
  EXPECT_EQ(MachineIdFromRunContext(rc).status().message(),
            "run context field cpu.family is a string, expected a number");
  rc = Fixture();
  rc.erase("gemm");
  EXPECT_EQ(MachineIdFromRunContext(rc).status().message(),
            "run context field gemm is missing or not an array");
  EXPECT_FALSE(MachineIdFromRunContext(nlohmann::json::array()).ok());
}

TEST(MachineKeyTest, ThisMachineHasAKey) {
  absl::StatusOr<MachineId> id = ThisMachineId();
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->hash.size(), 8u);
  EXPECT_EQ(ThisMachineId()->hash, id->hash);  // taken once
}

}  // namespace
}  // namespace harness
