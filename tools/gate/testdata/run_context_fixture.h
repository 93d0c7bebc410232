// Test fixture: run contexts as sysinfo::RunContext() writes them, for machines other than
// the one the test runs on (a Zen 4 VM by default; change the CPU signature to make another).
#ifndef TOOLS_GATE_TESTDATA_RUN_CONTEXT_FIXTURE_H_
#define TOOLS_GATE_TESTDATA_RUN_CONTEXT_FIXTURE_H_

#include <string>

#include "nlohmann/json.hpp"

namespace testdata {

struct FakeCpu {
  std::string model_name = "AMD EPYC";
  int family = 25, model = 17, stepping = 1;
  std::string isa_level = "AVX-512";
  int logical_cpus = 2;
};

inline nlohmann::json FakeRunContext(const FakeCpu& cpu = {}, const std::string& gpu = "none", int gpus = 0) {
  return {{"format", "mlbench-run-context/1"},
          {"cpu",
           {{"vendor", "AuthenticAMD"},
            {"model_name", cpu.model_name},
            {"family", cpu.family},
            {"model", cpu.model},
            {"stepping", cpu.stepping},
            {"isa_level", cpu.isa_level},
            {"isa_flags", "AVX2 AVX-512F FMA"},
            {"logical_cpus", cpu.logical_cpus},
            {"physical_cores", cpu.logical_cpus},
            {"memory_gib", 24}}},
          {"gemm",
           {{{"name", "OpenBLAS"},
             {"version", "0.3.21"},
             {"kernel", "Haswell"},
             {"note", "forced by OPENBLAS_CORETYPE=Haswell"},
             {"threads", 1}}}},
          {"gpu",
           {{"name", gpu},
            {"count", gpus},
            {"driver", gpus ? "13.0" : "none"},
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

// A merged run's "context" as tools/bench writes it.
inline nlohmann::json BenchContext(const nlohmann::json& run_context, const std::string& commit = "abc",
                                   const std::string& suite = "quick") {
  return {{"host_name", "test"},
          {"mlbench",
           {{"run_context", run_context}, {"suite", suite}, {"commit", commit}, {"build_type", "opt"}}}};
}

}  // namespace testdata

#endif  // TOOLS_GATE_TESTDATA_RUN_CONTEXT_FIXTURE_H_
