// Google-Benchmark-shaped JSON written by hand; see benchmark_json.h.
#include "harness/benchmark_json.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "harness/atomic_file.h"
#include "sysinfo/run_context.h"
#include "sysinfo/utc_now.h"

namespace harness {

nlohmann::json BenchmarkContext(const std::string& executable) {
  const benchmark::CPUInfo& cpu = benchmark::CPUInfo::Get();
  nlohmann::json c;
  c["date"] = sysinfo::UtcNow();
  c["host_name"] = benchmark::SystemInfo::Get().name;
  c["executable"] = executable;
  c["num_cpus"] = cpu.num_cpus;
  c["mhz_per_cpu"] = static_cast<int>(cpu.cycles_per_second / 1e6);
  c["cpu_scaling_enabled"] = cpu.scaling == benchmark::CPUInfo::ENABLED;
  c["caches"] = nlohmann::json::array();
  for (const auto& k : cpu.caches) {
    c["caches"].push_back(
        {{"type", k.type}, {"level", k.level}, {"size", k.size}, {"num_sharing", k.num_sharing}});
  }
  c["load_avg"] = cpu.load_avg;
  // Google Benchmark is compiled in this build's mode (third_party/benchmark.BUILD), so this
  // file's NDEBUG is the library's too: the key means what its JSON reporter writes.
#ifdef NDEBUG
  c["library_build_type"] = "release";
#else
  c["library_build_type"] = "debug";
#endif
  const nlohmann::json rc = sysinfo::RunContext();
  c["mlbench_run_context"] = rc.dump();
  c["mlbench_machine"] = sysinfo::DescribeRunContext(rc);
  c["mlbench_commit"] = rc["build"]["commit"];
  return c;
}

absl::StatusOr<nlohmann::json> BenchmarkJson(const nlohmann::json& context,
                                             const std::vector<BenchmarkEntry>& entries) {
  static const std::set<std::string> kUnits = {"ns", "us", "ms", "s"};
  static const std::set<std::string> kKeys = {"name",
                                              "family_index",
                                              "per_family_instance_index",
                                              "run_name",
                                              "run_type",
                                              "repetitions",
                                              "repetition_index",
                                              "threads",
                                              "iterations",
                                              "real_time",
                                              "cpu_time",
                                              "time_unit",
                                              "label"};
  nlohmann::json j;
  j["context"] = context;
  j["benchmarks"] = nlohmann::json::array();
  for (size_t i = 0; i < entries.size(); ++i) {
    const BenchmarkEntry& e = entries[i];
    const std::string which = absl::StrCat("benchmark entry ", i, " '", e.name, "'");
    if (e.name.empty()) return absl::InvalidArgumentError(absl::StrCat(which, ": no name"));
    if (e.iterations < 1)
      return absl::InvalidArgumentError(absl::StrCat(which, ": iterations ", e.iterations, " < 1"));
    if (!(std::isfinite(e.real_time) && e.real_time >= 0 && std::isfinite(e.cpu_time) && e.cpu_time >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(which, ": real_time ", e.real_time, " / cpu_time ",
                                                     e.cpu_time, " must be finite and >= 0"));
    }
    if (!kUnits.count(e.time_unit)) {
      return absl::InvalidArgumentError(
          absl::StrCat(which, ": time_unit '", e.time_unit, "' is not ns, us, ms or s"));
    }
    nlohmann::json b = {{"name", e.name},
                        {"family_index", e.family_index},
                        {"per_family_instance_index", 0},
                        {"run_name", e.name},
                        {"run_type", "iteration"},
                        {"repetitions", e.repetitions},
                        {"repetition_index", e.repetition_index},
                        {"threads", 1},
                        {"iterations", e.iterations},
                        {"real_time", e.real_time},
                        {"cpu_time", e.cpu_time},
                        {"time_unit", e.time_unit}};
    for (const auto& [key, value] : e.counters) {
      if (kKeys.count(key))
        return absl::InvalidArgumentError(absl::StrCat(which, ": counter '", key, "' is a key of the entry"));
      b[key] = value;
    }
    if (!e.label.empty()) b["label"] = e.label;
    j["benchmarks"].push_back(std::move(b));
  }
  return j;
}

absl::Status WriteJsonFile(const std::string& flag, const std::string& path, const nlohmann::json& j) {
  absl::Status st = WriteFileAtomically(path, j.dump(2) + "\n");
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat(flag, "=", path, ": ", st.message()));
  return absl::OkStatus();
}

}  // namespace harness
