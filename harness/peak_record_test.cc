// The machine's record (peak_record.h): where it is kept, a record only moves up, other machines'
// entries are kept, a file that is not a record is neither used nor overwritten, two processes
// raising at once both land, and a held lock times out.
#include "harness/peak_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/json_doc.h"
#include "nlohmann/json.hpp"

namespace harness {
namespace {

std::string Tmp(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  mkdir(dir.c_str(), 0700);
  return dir;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

MachineId Machine(const std::string& hash) {
  MachineId m;
  m.hash = hash;
  m.description = "test machine " + hash;
  return m;
}

// Sets an environment variable for one test, and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(PeakRecordTest, WhereTheRecordIsKept) {
  {
    ScopedEnv e(kPeakRecordEnv, "off");
    absl::StatusOr<std::optional<std::string>> p = PeakRecordPath();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_FALSE(p->has_value());
  }
  {
    ScopedEnv e(kPeakRecordEnv, "/somewhere/record.json");
    EXPECT_EQ(PeakRecordPath()->value(), "/somewhere/record.json");
  }
  {
    ScopedEnv e(kPeakRecordEnv, "record.json");
    absl::StatusOr<std::optional<std::string>> p = PeakRecordPath();
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(
        p.status().message(),
        "MLBENCH_PEAK_RECORD='record.json' is invalid: allowed an absolute file path (the machine's record "
        "kept there) or off (no record)");
  }
  // Unset: the user's cache folder, created private.
  const std::string xdg = Tmp("xdg");
  ScopedEnv e(kPeakRecordEnv, nullptr);
  ScopedEnv x("XDG_CACHE_HOME", xdg.c_str());
  absl::StatusOr<std::optional<std::string>> p = PeakRecordPath();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->value(), xdg + "/mlbench/peak_record.json");
  struct stat st;
  ASSERT_EQ(stat((xdg + "/mlbench").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(PeakRecordTest, ARecordOnlyMovesUpAndOtherMachinesAreKept) {
  const std::string path = Tmp("up") + "/record.json";
  absl::StatusOr<std::map<std::string, double>> r = ReadPeakRecord(path, "aaaa0000");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->empty());  // no file yet

  auto raised = RaisePeakRecord(
      path, Machine("aaaa0000"),
      {{"fp32_fma/threads=2", 200e9, "FLOP/s"}, {"stream_triad/threads=2/array_mib=128", 30e9, "B/s"}});
  ASSERT_TRUE(raised.ok()) << raised.status();
  ASSERT_EQ(raised->size(), 2u);
  EXPECT_EQ((*raised)[0].from, 0);
  EXPECT_EQ((*raised)[0].to, 200e9);
  ASSERT_TRUE(RaisePeakRecord(path, Machine("bbbb1111"), {{"fp32_fma/threads=2", 500e9, "FLOP/s"}}).ok());

  // Lower: nothing raised, the file not rewritten.
  const std::string before = Slurp(path);
  raised = RaisePeakRecord(path, Machine("aaaa0000"), {{"fp32_fma/threads=2", 150e9, "FLOP/s"}});
  ASSERT_TRUE(raised.ok()) << raised.status();
  EXPECT_TRUE(raised->empty());
  EXPECT_EQ(Slurp(path), before);

  // Higher: that figure moves, the other stays, and so does the other machine.
  raised = RaisePeakRecord(path, Machine("aaaa0000"), {{"fp32_fma/threads=2", 210e9, "FLOP/s"}});
  ASSERT_TRUE(raised.ok()) << raised.status();
  ASSERT_EQ(raised->size(), 1u);
  EXPECT_EQ((*raised)[0].from, 200e9);
  r = ReadPeakRecord(path, "aaaa0000");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->at("fp32_fma/threads=2"), 210e9);
  EXPECT_EQ(r->at("stream_triad/threads=2/array_mib=128"), 30e9);
  EXPECT_EQ(ReadPeakRecord(path, "bbbb1111")->at("fp32_fma/threads=2"), 500e9);
  EXPECT_TRUE(ReadPeakRecord(path, "cccc2222")->empty());

  nlohmann::json doc = ParseJson(Slurp(path));
  EXPECT_EQ(doc["format"], kPeakRecordFormat);
  EXPECT_EQ(doc["machines"]["aaaa0000"]["machine"], "test machine aaaa0000");
  EXPECT_EQ(doc["machines"]["aaaa0000"]["figures"]["fp32_fma/threads=2"]["unit"], "FLOP/s");
  EXPECT_TRUE(doc["machines"]["aaaa0000"]["figures"]["fp32_fma/threads=2"]["date"].is_string());
}

TEST(PeakRecordTest, AFileThatIsNotARecordIsNeitherUsedNorOverwritten) {
  const std::string dir = Tmp("bad");
  struct Case {
    std::string text, why;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"machines\": ", "malformed JSON in the file at byte offset 13"},
           {"[1, 2]", "a JSON array, not an object"},
           {"{\"benchmarks\": []}", "its \"format\" is missing, expected \"mlbench-peak-record/1\""},
           {"{\"format\": \"mlbench-peak-record/9\", \"machines\": {}}",
            "its \"format\" is \"mlbench-peak-record/9\""},
           {"{\"format\": \"mlbench-peak-record/1\"}", "no \"machines\" object"},
           {"{\"format\": \"mlbench-peak-record/1\", \"machines\": {\"aaaa0000\": {\"figures\": {\"x\": "
            "{\"value\": "
            "-1}}}}}",
            "machine aaaa0000 figure x has no \"value\" that is a finite number > 0"},
       }) {
    const std::string path = dir + "/record.json";
    Spit(path, c.text);
    absl::StatusOr<std::map<std::string, double>> r = ReadPeakRecord(path, "aaaa0000");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_TRUE(absl::IsFailedPrecondition(r.status())) << r.status();
    EXPECT_NE(r.status().message().find("'" + path + "' is not a peak record ("), std::string::npos)
        << r.status();
    EXPECT_NE(r.status().message().find(c.why), std::string::npos) << r.status();
    auto raised = RaisePeakRecord(path, Machine("aaaa0000"), {{"fp32_fma/threads=2", 200e9, "FLOP/s"}});
    EXPECT_FALSE(raised.ok()) << c.text;
    EXPECT_EQ(Slurp(path), c.text);
  }
  // A folder is not a record either.
  EXPECT_FALSE(ReadPeakRecord(dir, "aaaa0000").ok());
}

TEST(PeakRecordTest, BadFiguresAndAMissingFolderAreErrors) {
  const std::string path = Tmp("figs") + "/record.json";
  for (RecordFigure f : {RecordFigure{"", 1e9, "FLOP/s"}, RecordFigure{"x", 0, "FLOP/s"},
                         RecordFigure{"x", -1, "FLOP/s"}, RecordFigure{"x", 1.0 / 0.0, "FLOP/s"}}) {
    auto raised = RaisePeakRecord(path, Machine("aaaa0000"), {f});
    ASSERT_FALSE(raised.ok()) << f.name << " " << f.value;
    EXPECT_TRUE(absl::IsInvalidArgument(raised.status())) << raised.status();
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0);  // nothing written
  auto raised = RaisePeakRecord(Tmp("figs") + "/no/such/folder/record.json", Machine("aaaa0000"),
                                {{"x", 1e9, "FLOP/s"}});
  ASSERT_FALSE(raised.ok());
  EXPECT_NE(raised.status().message().find("No such file or directory"), std::string::npos)
      << raised.status();
}

// Two processes raise one record file at once, 100 times each, each its own figure: without the
// lock's read-merge-write one would lose the other's updates.
TEST(PeakRecordTest, TwoProcessesRaisingAtOnceBothLand) {
  const std::string path = Tmp("race") + "/record.json";
  constexpr int kRaises = 100;
  pid_t pids[2];
  for (int child = 0; child < 2; ++child) {
    pids[child] = fork();
    ASSERT_GE(pids[child], 0);
    if (pids[child] == 0) {
      for (int i = 1; i <= kRaises; ++i) {
        auto r =
            RaisePeakRecord(path, Machine("aaaa0000"), {{absl::StrCat("figure", child), 1e9 * i, "FLOP/s"}});
        if (!r.ok() || r->size() != 1) _exit(1);
      }
      _exit(0);
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  absl::StatusOr<std::map<std::string, double>> r = ReadPeakRecord(path, "aaaa0000");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->at("figure0"), 1e9 * kRaises);
  EXPECT_EQ(r->at("figure1"), 1e9 * kRaises);
}

TEST(PeakRecordTest, AHeldLockTimesOutAndLeavesTheFile) {
  const std::string path = Tmp("lock") + "/record.json";
  ASSERT_TRUE(RaisePeakRecord(path, Machine("aaaa0000"), {{"x", 1e9, "FLOP/s"}}).ok());
  const std::string before = Slurp(path);
  const int fd = open((path + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  // flock locks belong to the open file description: a second open in this process conflicts.
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  auto raised = RaisePeakRecord(path, Machine("aaaa0000"), {{"x", 2e9, "FLOP/s"}}, /*lock_timeout_s=*/0.2);
  ASSERT_FALSE(raised.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(raised.status())) << raised.status();
  EXPECT_EQ(Slurp(path), before);
  close(fd);
  EXPECT_TRUE(RaisePeakRecord(path, Machine("aaaa0000"), {{"x", 2e9, "FLOP/s"}}, 0.2).ok());
}

}  // namespace
}  // namespace harness
