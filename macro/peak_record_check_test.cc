// The start-up figures against this machine's record (peak_record_check.h): which figures, the
// checks, the first record, a run far below it (DISTURBED, the record kept), probes 10% apart and
// the test hook (never recorded), a record that is not one (a warning, the file kept), and off.
#include "macro/peak_record_check.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/machine_key.h"
#include "harness/peak_record.h"

namespace macro {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A record file in the test's temporary folder, named by MLBENCH_PEAK_RECORD for one test.
class PeakRecordCheckTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/",
                        testing::UnitTest::GetInstance()->current_test_info()->name());
    mkdir(dir_.c_str(), 0700);
    path_ = dir_ + "/record.json";
    setenv(harness::kPeakRecordEnv, path_.c_str(), 1);
  }
  void TearDown() override { unsetenv(harness::kPeakRecordEnv); }

  // Consults with `figures` (quiet probes of 200 GFLOP/s unless given), capturing stderr.
  accounting::PeakProbes Consult(const std::vector<StartupFigure>& figures, bool may_raise = true,
                                 accounting::PeakProbes probes = accounting::PeakProbes{200e9, 198e9}) {
    testing::internal::CaptureStderr();
    ConsultPeakRecord(figures, may_raise, &probes);
    said_ = testing::internal::GetCapturedStderr();
    return probes;
  }

  std::map<std::string, double> Recorded() {
    auto r = harness::ReadPeakRecord(path_, harness::ThisMachineId()->hash);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::map<std::string, double>{};
  }

  std::string dir_, path_, said_;
};

micro::StreamResult Stream(double copy, double triad) {
  micro::StreamResult s;
  s.elements = (int64_t{128} << 20) / 4;
  s.threads = 2;
  s.copy_bytes_per_s = copy;
  s.triad_bytes_per_s = triad;
  return s;
}

TEST(StartupFiguresTest, TheBestProbeAndTheStartUpStream) {
  std::vector<StartupFigure> f = StartupFigures(accounting::Dtype::kFp32, 200e9, 2, Stream(30e9, 25e9));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].name, "fp32_fma/threads=2");
  EXPECT_EQ(f[0].what, "FMA peak probe (the best of start-up and after)");
  EXPECT_EQ(f[0].keyed, "2 threads");
  EXPECT_EQ(f[0].value, 200e9);
  EXPECT_EQ(f[1].name, "stream_triad/threads=2/array_mib=128");
  EXPECT_EQ(f[1].what, "start-up STREAM triad");
  EXPECT_EQ(f[1].keyed, "2 threads, 128 MiB arrays");
  EXPECT_EQ(f[1].value, 25e9);
  EXPECT_EQ(f[2].name, "stream_copy/threads=2/array_mib=128");
  EXPECT_EQ(f[2].unit, "B/s");
  // The read and in-place roofs, where the run measured them (every start-up STREAM run does).
  micro::StreamResult roofs = Stream(30e9, 25e9);
  roofs.roofs = {{"read", 40e9}, {"write_nt", 20e9}, {"in_place", 38e9}};
  f = StartupFigures(accounting::Dtype::kFp32, 200e9, 2, roofs);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[3].name, "memory_read/threads=2/array_mib=128");
  EXPECT_EQ(f[3].what, "start-up read memory roof");
  EXPECT_EQ(f[3].value, 40e9);
  EXPECT_EQ(f[4].name, "memory_in_place/threads=2/array_mib=128");
  EXPECT_EQ(f[4].value, 38e9);
  f = StartupFigures(accounting::Dtype::kBf16, 400e9, 1, std::nullopt);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "bf16/threads=1");
  EXPECT_EQ(f[0].keyed, "1 thread");

  std::vector<accounting::RecordCheck> c = RecordChecks(
      StartupFigures(accounting::Dtype::kFp32, 95.1e9, 2, std::nullopt), {{"fp32_fma/threads=2", 232e9}});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].record, 232e9);
  EXPECT_EQ(c[0].keyed, "2 threads");
  EXPECT_EQ(RecordChecks(StartupFigures(accounting::Dtype::kFp32, 1, 4, std::nullopt),
                         {{"fp32_fma/threads=2", 2}})[0]
                .record,
            0);  // another thread count is another figure
}

TEST_F(PeakRecordCheckTest, TheFirstQuietRunMakesTheRecordAndAFarSlowerOneIsDisturbed) {
  accounting::PeakProbes p = Consult(StartupFigures(accounting::Dtype::kFp32, 200e9, 2, Stream(30e9, 25e9)));
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_EQ(p.records[0].record, 0);  // none yet: not judged
  EXPECT_FALSE(accounting::JudgeDisturbance({}, p).disturbed);
  EXPECT_NE(said_.find(
                "peak record raised by this run's quiet start-up figures (" + path_ + ", machine key " +
                harness::ThisMachineId()->hash +
                "): fp32_fma/threads=2 200.0 GFLOP/s (first), "
                "stream_triad/threads=2/array_mib=128 25.0 GB/s (first), stream_copy/threads=2/array_mib=128 "
                "30.0 GB/s (first)"),
            std::string::npos)
      << said_;
  EXPECT_EQ(Recorded().at("fp32_fma/threads=2"), 200e9);

  // The busy run: its probes agree, but are 41% of the record: DISTURBED, and the record stays.
  const std::string before = Slurp(path_);
  p = Consult(StartupFigures(accounting::Dtype::kFp32, 82e9, 2, Stream(29e9, 24e9)), true,
              accounting::PeakProbes{82e9, 80e9});
  accounting::Disturbance d = accounting::JudgeDisturbance({}, p);
  EXPECT_TRUE(d.disturbed);
  EXPECT_EQ(d.reason,
            absl::StrCat("the FMA peak probe (the best of start-up and after) 82.0 GFLOP/s is 41.0% of "
                         "this machine's record 200.0 GFLOP/s (2 threads), more than 15% below it (record: ",
                         path_, ")"));
  EXPECT_EQ(p.record_file, path_);
  EXPECT_EQ(said_, "");
  EXPECT_EQ(Slurp(path_), before);

  // A faster quiet run raises what it measured faster, and says so in one line.
  p = Consult(StartupFigures(accounting::Dtype::kFp32, 210e9, 2, Stream(28e9, 26e9)));
  EXPECT_FALSE(accounting::JudgeDisturbance({}, p).disturbed);
  EXPECT_NE(
      said_.find(
          "fp32_fma/threads=2 200.0 -> 210.0 GFLOP/s, stream_triad/threads=2/array_mib=128 25.0 -> 26.0 "
          "GB/s\n"),
      std::string::npos)
      << said_;
  EXPECT_EQ(Recorded().at("stream_copy/threads=2/array_mib=128"), 30e9);  // not lowered
}

TEST_F(PeakRecordCheckTest, AStreamFarBelowItsRecordIsDisturbedToo) {
  Consult(StartupFigures(accounting::Dtype::kFp32, 200e9, 2, Stream(30e9, 25e9)));
  accounting::PeakProbes p = Consult(StartupFigures(accounting::Dtype::kFp32, 199e9, 2, Stream(30e9, 10e9)));
  accounting::Disturbance d = accounting::JudgeDisturbance({}, p);
  EXPECT_TRUE(d.disturbed);
  EXPECT_EQ(d.reason,
            absl::StrCat("the start-up STREAM triad 10.0 GB/s is 40.0% of this machine's record 25.0 GB/s "
                         "(2 threads, 128 MiB arrays), more than 15% below it (record: ",
                         path_, ")"));
  EXPECT_EQ(said_, "");  // DISTURBED: nothing raised
}

TEST_F(PeakRecordCheckTest, ProbesApartOrTheTestHookNeverRaiseTheRecord) {
  // Probes 20% apart: compared (nothing to compare with yet), not recorded.
  Consult(StartupFigures(accounting::Dtype::kFp32, 250e9, 2, std::nullopt), true,
          accounting::PeakProbes{250e9, 200e9});
  EXPECT_EQ(said_, "");
  struct stat st;
  EXPECT_NE(stat(path_.c_str(), &st), 0) << "written: " << Slurp(path_);
  // may_raise = false (MLBENCH_TEST_AFTER_PROBE_SCALE set): compared, never recorded.
  accounting::PeakProbes p = Consult(StartupFigures(accounting::Dtype::kFp32, 250e9, 2, std::nullopt), false);
  EXPECT_EQ(p.records.size(), 1u);
  EXPECT_NE(stat(path_.c_str(), &st), 0);
}

TEST_F(PeakRecordCheckTest, ARecordThatIsNotOneIsAWarningAndIsLeftAsItIs) {
  std::ofstream(path_) << "{\"some\": \"other program's file\"}";
  accounting::PeakProbes p = Consult(StartupFigures(accounting::Dtype::kFp32, 200e9, 2, std::nullopt));
  EXPECT_TRUE(p.records.empty());
  EXPECT_FALSE(accounting::JudgeDisturbance({}, p).disturbed);
  EXPECT_NE(said_.find(
                absl::StrCat(": WARNING: peak record: '", path_,
                             "' is not a peak record (its \"format\" is missing, expected "
                             "\"mlbench-peak-record/1\"); this run's start-up figures are not compared with "
                             "this machine's record (MLBENCH_PEAK_RECORD=FILE keeps it elsewhere, =off turns "
                             "it off)\n")),
            std::string::npos)
      << said_;
  EXPECT_EQ(Slurp(path_), "{\"some\": \"other program's file\"}");
  // A relative MLBENCH_PEAK_RECORD here (ChooseRunPeak refuses it before a run): a warning.
  setenv(harness::kPeakRecordEnv, "record.json", 1);
  p = Consult(StartupFigures(accounting::Dtype::kFp32, 200e9, 2, std::nullopt));
  EXPECT_TRUE(p.records.empty());
  EXPECT_NE(said_.find("WARNING: peak record: MLBENCH_PEAK_RECORD='record.json' is invalid"),
            std::string::npos)
      << said_;
}

TEST_F(PeakRecordCheckTest, OffIsSilent) {
  setenv(harness::kPeakRecordEnv, "off", 1);
  accounting::PeakProbes p = Consult(StartupFigures(accounting::Dtype::kFp32, 200e9, 2, std::nullopt));
  EXPECT_TRUE(p.records.empty());
  EXPECT_EQ(said_, "");
}

}  // namespace
}  // namespace macro
