// End to end: the //tools:gate binary refuses inputs it cannot judge honestly, with exit 2 and
// a message naming the problem: a --current that never ends (a FIFO fed without end, as
// /dev/zero would be) is cut at harness::kMaxJsonFileBytes instead of aborting with bad_alloc,
// and a repetition given twice is refused instead of counted as a second sample.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"
#include "nlohmann/json.hpp"
#include "tools/gate/testdata/gate_process.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace {

using nlohmann::json;
using testdata::Gate;
using testdata::Tmp;


std::string Output(const harness::ProcessResult& r) { return r.stdout_text + r.stderr_text; }

TEST(GateLimitsTest, EndlessCurrentIsRefusedAtTheLimit) {
  signal(SIGPIPE, SIG_IGN);  // the writer below sees the gate leave
  const std::string fifo = Tmp() + "/endless.json";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([fifo] {
    FILE* f = std::fopen(fifo.c_str(), "wb");
    if (f == nullptr) return;
    static const char zeros[1 << 16] = {};
    while (std::fwrite(zeros, 1, sizeof(zeros), f) == sizeof(zeros)) {
    }
    std::fclose(f);
  });
  harness::ProcessResult r = Gate({"--current=" + fifo, "--baseline_dir=" + Tmp()});
  writer.join();
  EXPECT_EQ(r.exit_code, 2) << Output(r);
  EXPECT_NE(Output(r).find("over the limit of 256 MiB"), std::string::npos) << Output(r);
  EXPECT_NE(Output(r).find(fifo), std::string::npos) << Output(r);
}

TEST(GateLimitsTest, DuplicatedRepetitionIsRefused) {
  json j = {{"context", testdata::BenchContext(testdata::FakeRunContext(testdata::FakeCpu()))},
            {"benchmarks", json::array()}};
  for (int r = 0; r < 9; ++r) {
    j["benchmarks"].push_back({{"name", "BM_A/cpu"},
                               {"run_type", "iteration"},
                               {"repetition_index", r},
                               {"real_time", 100.0 + r},
                               {"cpu_time", 100.0 + r},
                               {"time_unit", "ns"}});
  }
  json dup = j["benchmarks"][4];
  dup["real_time"] = 300.0;
  j["benchmarks"].push_back(dup);
  const std::string path = Tmp() + "/dup.json";
  std::ofstream(path) << j.dump();
  harness::ProcessResult r = Gate({"--current=" + path, "--baseline_dir=" + Tmp()});
  EXPECT_EQ(r.exit_code, 2) << Output(r);
  EXPECT_NE(Output(r).find("benchmarks[9] repeats case 'BM_A/cpu' repetition 4, already benchmarks[4]"),
            std::string::npos)
      << Output(r);

  // The two sides of an A/B run, and the recordings of a pooled baseline, may share a repetition.
  for (json& b : j["benchmarks"]) b["mlbench_side"] = "current";
  j["benchmarks"].back()["mlbench_side"] = "base";
  std::ofstream(path) << j.dump();
  r = Gate({"--current=" + path, "--baseline_dir=" + Tmp()});
  EXPECT_EQ(Output(r).find("repeats case"), std::string::npos) << Output(r);
}

}  // namespace
