// gate --update holds the baseline folder's lock (harness/folder_lock.h) from reading the
// baseline to writing it: two updates of disjoint cases into one folder at once both land
// (without the lock, both read the same old file and the later rename drops the other's cases);
// an update that cannot get the lock in --lock_timeout_s says whom it waited for and exits 2.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/folder_lock.h"
#include "harness/subprocess.h"
#include "nlohmann/json.hpp"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/testdata/gate_process.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace {

using nlohmann::json;
using testdata::Gate;
using testdata::Tmp;


testdata::FakeCpu Cpu() {
  testdata::FakeCpu c;
  c.model_name = "Lock CPU";
  return c;
}

// A run of `cases` cases named "<prefix><k>/cpu", 9 verified repetitions each; written to a file.
std::string WriteRun(const std::string& prefix, int cases) {
  json j = {{"context", testdata::BenchContext(testdata::FakeRunContext(Cpu()))},
            {"benchmarks", json::array()}};
  for (int k = 0; k < cases; ++k) {
    for (int r = 0; r < 9; ++r) {
      j["benchmarks"].push_back({{"name", absl::StrCat(prefix, k, "/cpu")},
                                 {"run_type", "iteration"},
                                 {"repetition_index", r},
                                 {"real_time", 1000.0 + r},
                                 {"cpu_time", 1000.0 + r},
                                 {"time_unit", "ns"},
                                 {"verified", 1.0}});
    }
  }
  const std::string path = absl::StrCat(Tmp(), "/", prefix, ".json");
  std::ofstream(path) << j.dump();
  return path;
}

std::set<std::string> BaselineNames(const std::string& dir) {
  const std::string file =
      absl::StrCat(dir, "/", gate::KeyFromRunContext(testdata::FakeRunContext(Cpu()))->FileName("quick"));
  absl::StatusOr<json> j = gate::ReadJsonFile(file);
  std::set<std::string> names;
  if (!j.ok()) return names;
  for (const json& e : (*j)["benchmarks"]) names.insert(e["name"].get<std::string>());
  return names;
}

TEST(GateLockTest, ConcurrentUpdatesOfOneFolderLoseNothing) {
  const std::string dir = Tmp() + "/baselines_concurrent";
  std::set<std::string> expected;
  // Several rounds, each two updates started together: without the lock nearly every round loses
  // one side's cases (both read the file before either writes it).
  for (int round = 0; round < 6; ++round) {
    const std::string a = absl::StrCat("BM_R", round, "A"), b = absl::StrCat("BM_R", round, "B");
    const std::string run_a = WriteRun(a, 60), run_b = WriteRun(b, 60);
    for (int k = 0; k < 60; ++k) {
      expected.insert(absl::StrCat(a, k, "/cpu"));
      expected.insert(absl::StrCat(b, k, "/cpu"));
    }
    harness::ProcessResult ra, rb;
    std::thread ta([&] { ra = Gate({"--current=" + run_a, "--baseline_dir=" + dir, "--update"}); });
    std::thread tb([&] { rb = Gate({"--current=" + run_b, "--baseline_dir=" + dir, "--update"}); });
    ta.join();
    tb.join();
    ASSERT_EQ(ra.exit_code, 0) << ra.stdout_text << ra.stderr_text;
    ASSERT_EQ(rb.exit_code, 0) << rb.stdout_text << rb.stderr_text;
    const std::set<std::string> have = BaselineNames(dir);
    std::vector<std::string> lost;
    for (const std::string& n : expected) {
      if (!have.count(n)) lost.push_back(n);
    }
    EXPECT_TRUE(lost.empty()) << "round " << round << ": " << lost.size() << " case(s) lost, e.g. " << lost[0]
                              << "\n"
                              << ra.stdout_text << rb.stdout_text;
    if (!lost.empty()) break;
  }
}

TEST(GateLockTest, AHeldLockIsWaitedForThenRefusedNamingTheHolder) {
  const std::string dir = Tmp() + "/baselines_held";
  const std::string run = WriteRun("BM_Held", 2);
  ASSERT_EQ(Gate({"--current=" + run, "--baseline_dir=" + dir, "--update"}).exit_code, 0);
  absl::StatusOr<harness::FolderLock> held = harness::FolderLock::Acquire(dir, "test", 5);
  ASSERT_TRUE(held.ok()) << held.status();
  harness::ProcessResult r =
      Gate({"--current=" + run, "--baseline_dir=" + dir, "--update", "--lock_timeout_s=0.3"});
  EXPECT_EQ(r.exit_code, 2) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("gate: waiting for the lock " + dir + "/.lock (held by pid " +
                               std::to_string(getpid()) + ")"),
            std::string::npos)
      << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("after 0.3 s"), std::string::npos) << r.stderr_text;
  // A gate without --update reads the baseline without the lock.
  EXPECT_EQ(Gate({"--current=" + run, "--baseline_dir=" + dir}).exit_code, 0);
  // Released: the update goes through.
  held = absl::InternalError("released");
  r = Gate({"--current=" + run, "--baseline_dir=" + dir, "--update", "--lock_timeout_s=5"});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
}

}  // namespace
