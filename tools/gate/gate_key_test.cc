// Machine keys from run contexts: a CPU generation behind the same model name is another key,
// and the differing fields are named.
#include "tools/gate/gate_key.h"

#include <utility>

#include "gtest/gtest.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace gate {
namespace {

using nlohmann::json;
using testdata::BenchContext;
using testdata::FakeCpu;
using testdata::FakeRunContext;

MachineKey Key(const json& rc) {
  absl::StatusOr<MachineKey> k = KeyFromRunContext(rc);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : MachineKey{};
}

TEST(GateKeyTest, SameModelNameOtherGenerationIsAnotherKey) {
  FakeCpu zen4;
  FakeCpu zen5 = zen4;
  zen5.family = 26;
  zen5.model = 2;
  MachineKey a = Key(FakeRunContext(zen4)), b = Key(FakeRunContext(zen5));
  EXPECT_FALSE(a == b);
  EXPECT_NE(a.FileName("quick"), b.FileName("quick"));
  std::vector<std::string> diff = KeyDifferences(a, b);
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0], "cpu.family: 25 (baseline) vs 26 (this run)");
  EXPECT_EQ(diff[1], "cpu.model: 17 (baseline) vs 2 (this run)");
}

TEST(GateKeyTest, EveryFieldThatChangesSpeedIsInTheKey) {
  const MachineKey base = Key(FakeRunContext());
  auto differs = [&](void (*edit)(json*)) {
    json rc = FakeRunContext();
    edit(&rc);
    return !(Key(rc) == base);
  };
  EXPECT_TRUE(differs([](json* c) { (*c)["cpu"]["stepping"] = 2; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["cpu"]["isa_level"] = "AVX2"; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["cpu"]["logical_cpus"] = 4; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["cpu"]["memory_gib"] = 48; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["gemm"][0]["kernel"] = "SkylakeX"; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["gemm"][0]["version"] = "0.3.26"; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["build"]["compiler"] = "clang 14"; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["build"]["compilation_mode"] = "dbg"; }));
  EXPECT_TRUE(differs([](json* c) { (*c)["build"]["asserts"] = true; }));
  // Not in it: the code (commit), the date, and CUDA versions without a GPU.
  EXPECT_FALSE(differs([](json* c) { (*c)["build"]["commit"] = "def"; }));
  EXPECT_FALSE(differs([](json* c) { (*c)["date"] = "2030-01-01T00:00:00Z"; }));
  EXPECT_FALSE(differs([](json* c) { (*c)["gpu"]["runtime"] = "14.0"; }));
  EXPECT_FALSE(differs([](json* c) { (*c)["gemm"][0]["threads"] = 2; }));
}

TEST(GateKeyTest, GpuMachineKeysTheDriverAndLibraries) {
  MachineKey a = Key(FakeRunContext({}, "NVIDIA H200", 1));
  EXPECT_NE(a.Describe().find("1x NVIDIA H200"), std::string::npos) << a.Describe();
  EXPECT_NE(a.FileName("quick").find("1x-NVIDIA_H200"), std::string::npos) << a.FileName("quick");
  json rc = FakeRunContext({}, "NVIDIA H200", 1);
  rc["gpu"]["cublas"] = "13.2.0";
  EXPECT_FALSE(Key(rc) == a);
  rc = FakeRunContext({}, "NVIDIA H200", 8);
  EXPECT_FALSE(Key(rc) == a);
}

TEST(GateKeyTest, FileNameIsReadableAndCarriesTheHash) {
  MachineKey k = Key(FakeRunContext());
  EXPECT_EQ(k.Hash().size(), 8u);
  EXPECT_EQ(k.FileName("quick"), "AMD_EPYC_f25-m17-s1_AVX-512_x2__no-GPU__" + k.Hash() + "__quick.json");
  EXPECT_NE(k.FileName("quick"), k.FileName("full"));
}

TEST(GateKeyTest, FindsTheRunContextOfBenchAndOfABinary) {
  json rc = FakeRunContext();
  absl::StatusOr<MachineKey> from_bench = KeyFromContext(BenchContext(rc), "run.json");
  ASSERT_TRUE(from_bench.ok()) << from_bench.status();
  // A benchmark binary's own JSON: Google Benchmark context values are strings.
  absl::StatusOr<MachineKey> from_binary =
      KeyFromContext(json{{"mlbench_run_context", rc.dump()}}, "mm.json");
  ASSERT_TRUE(from_binary.ok()) << from_binary.status();
  EXPECT_TRUE(*from_bench == *from_binary);
  EXPECT_EQ(SuiteFromContext(BenchContext(rc)), "quick");
  EXPECT_EQ(SuiteFromContext(json{{"num_cpus", 8}}), "default");
}

TEST(GateKeyTest, ARunWithoutARunContextCannotBeKeyed) {
  absl::StatusOr<MachineKey> k = KeyFromContext(json{{"num_cpus", 8}}, "plain.json");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("'plain.json'"), std::string::npos) << k.status();
  EXPECT_NE(k.status().message().find("cannot be identified"), std::string::npos) << k.status();
  EXPECT_FALSE(KeyFromContext(json{{"mlbench_run_context", "{not json"}}, "x").ok());
}

TEST(GateKeyTest, MissingOrMistypedFieldsAreNamed) {
  json rc = FakeRunContext();
  rc["cpu"]["family"] = "twenty-five";
  absl::StatusOr<MachineKey> k = KeyFromRunContext(rc);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("cpu.family"), std::string::npos) << k.status();
  rc = FakeRunContext();
  rc["cpu"].erase("stepping");
  k = KeyFromRunContext(rc);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("cpu.stepping is missing"), std::string::npos) << k.status();
}

TEST(GateKeyTest, StoredKeyRoundTripsAndTheOldKeyIsRefused) {
  MachineKey k = Key(FakeRunContext());
  absl::StatusOr<MachineKey> back = KeyFromJson(k.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == k);
  absl::StatusOr<MachineKey> old = KeyFromJson(
      json{{"cpu_model", "AMD EPYC"}, {"logical_cpus", "2"}, {"gpu_name", "none"}, {"cuda", "none"}});
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("old key"), std::string::npos) << old.status();
}

TEST(GateKeyTest, Sanitize) {
  const std::pair<const char*, const char*> cases[] = {{"a/b c", "a_b_c"},
                                                       {"../../etc/passwd", "etc_passwd"},
                                                       {"--x", "x"},
                                                       {"@@@", "unknown"},
                                                       {"CUDA-13.0", "CUDA-13.0"}};
  for (const auto& [in, want] : cases) EXPECT_EQ(SanitizeFileComponent(in), want) << in;
}

}  // namespace
}  // namespace gate
