// The disturbed decision: a rate above its ceiling, probes that differ by more than 10%, a
// figure more than 15% below this machine's record, and the quiet case that is none of them;
// the label round trip the gate relies on.
#include "accounting/disturbed.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(DisturbedTest, QuietRunIsNotDisturbed) {
  // MFU 46.5% against a peak probed at 492 and 480 GFLOP/s (2.4% apart).
  PeakProbes p{492e9, 480e9};
  Disturbance d = JudgeDisturbance({{"MFU", 229e9, 492e9}, {"HFU", 230e9, 492e9}}, p);
  EXPECT_FALSE(d.disturbed);
  EXPECT_EQ(d.reason, "");
  EXPECT_DOUBLE_EQ(BestProbe(p), 492e9);
  EXPECT_NEAR(ProbeSpread(p), 12.0 / 492, 1e-12);
}

TEST(DisturbedTest, RateAboveItsCeilingIsDisturbed) {
  // The run: 229 GFLOP/s achieved against a start-up probe of 163.4 GFLOP/s.
  Disturbance d = JudgeDisturbance({{"MFU", 229e9, 163.4e9}, {"HFU", 100e9, 163.4e9}});
  EXPECT_TRUE(d.disturbed);
  EXPECT_NE(d.reason.find("MFU 140.15% > 100%"), std::string::npos) << d.reason;
  EXPECT_EQ(d.reason.find("HFU"), std::string::npos) << d.reason;  // HFU 61% is fine
  // Exactly at the ceiling is not above it; within kCeilingTolerance (3%) above it is the
  // ceiling's own measurement noise (a one-thread sgemm at 100.13% of the probe); beyond it is not.
  EXPECT_FALSE(JudgeDisturbance({{"MFU", 5e9, 5e9}}).disturbed);
  EXPECT_FALSE(JudgeDisturbance({{"FLOP/s of the peak", 1.113e11, 1.111e11}}).disturbed);
  EXPECT_FALSE(JudgeDisturbance({{"MFU", 1.029e9, 1e9}}).disturbed);
  Disturbance above = JudgeDisturbance({{"MFU", 1.031e9, 1e9}});
  EXPECT_TRUE(above.disturbed);
  EXPECT_NE(above.reason.find("MFU 103.10% > 100%"), std::string::npos) << above.reason;
}

TEST(DisturbedTest, ProbesThatDifferByMoreThanTenPercentAreDisturbed) {
  // Before slow, after quiet: the rates are fine against the best probe, the spread is not.
  PeakProbes p{163e9, 492e9};
  Disturbance d = JudgeDisturbance({{"MFU", 229e9, BestProbe(p)}}, p);
  EXPECT_TRUE(d.disturbed);
  EXPECT_NE(d.reason.find("before (163.0 GFLOP/s) and after (492.0 GFLOP/s)"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("differ by 66.9% > 10%"), std::string::npos) << d.reason;
  EXPECT_EQ(d.reason.find("MFU"), std::string::npos) << d.reason;
  // The other order, and the boundary: 10% apart (relative to the faster) is still fine.
  EXPECT_TRUE(JudgeDisturbance({}, PeakProbes{492e9, 163e9}).disturbed);
  EXPECT_FALSE(JudgeDisturbance({}, PeakProbes{100e9, 90e9}).disturbed);
  EXPECT_TRUE(JudgeDisturbance({}, PeakProbes{100e9, 89.9e9}).disturbed);
  // One probe (a --peak_flops or --ceilings figure has none after): nothing to compare.
  EXPECT_FALSE(JudgeDisturbance({}, PeakProbes{163e9, 0}).disturbed);
  EXPECT_EQ(DescribeProbes(PeakProbes{163e9, 0}), "");
  EXPECT_EQ(DescribeProbes(p), "probes: before 163.0 GFLOP/s, after 492.0 GFLOP/s, best taken (they differ by 66.9%)");
}

TEST(DisturbedTest, BothCausesAreNamed) {
  Disturbance d = JudgeDisturbance({{"bandwidth bound", 40e9, 30e9, "B/s"}}, PeakProbes{100e9, 50e9});
  EXPECT_TRUE(d.disturbed);
  EXPECT_NE(d.reason.find("bandwidth bound 133.33% > 100%: 4e+10 B/s achieved above the ceiling 3e+10 B/s"),
            std::string::npos)
      << d.reason;
  EXPECT_NE(d.reason.find("; the peak probes before"), std::string::npos) << d.reason;
}

// The run: a Zen 4 VM whose quiet FMA loop reads 232 GFLOP/s probed 95.1 and 93.0 while
// other jobs ran; the probes agree, so only the machine's record shows the run was disturbed.
TEST(DisturbedTest, AFigureFarBelowTheMachinesRecordIsDisturbed) {
  PeakProbes p{95.1e9, 93.0e9};
  p.records.push_back({"FMA peak probe (the best of start-up and after)", 95.1e9, 232e9, "FLOP/s", "2 threads"});
  p.record_file = "/r.json";
  Disturbance d = JudgeDisturbance({{"MFU", 70e9, BestProbe(p)}}, p);
  EXPECT_TRUE(d.disturbed);
  EXPECT_EQ(d.reason,
            "the FMA peak probe (the best of start-up and after) 95.1 GFLOP/s is 41.0% of this machine's record "
            "232.0 GFLOP/s (2 threads), more than 15% below it (record: /r.json)");
  EXPECT_NE(DescribeProbes(p).find("; this machine's record (/r.json): FMA peak probe (the best of start-up and "
                                   "after) 232.0 GFLOP/s (2 threads), this run 41.0% of it"),
            std::string::npos)
      << DescribeProbes(p);
  // The boundary: 15% below the record is still quiet, a little more is not.
  PeakProbes edge{85e9, 85e9};
  edge.records.push_back({"x", 85e9, 100e9});
  EXPECT_FALSE(JudgeDisturbance({}, edge).disturbed);
  edge.records[0].figure = 84.9e9;
  EXPECT_TRUE(JudgeDisturbance({}, edge).disturbed);
  // Above the record is quiet (the record moves up with it, harness/peak_record.h).
  edge.records[0].figure = 120e9;
  EXPECT_FALSE(JudgeDisturbance({}, edge).disturbed);
}

TEST(DisturbedTest, EveryCauseIsNamedWithTheRecordsToo) {
  // A STREAM triad far below its record and probes 20% apart: both reasons, in that order.
  PeakProbes p{100e9, 80e9};
  p.records.push_back({"FMA peak probe", 100e9, 105e9, "FLOP/s", "w"});  // 95%: fine
  p.records.push_back({"start-up STREAM triad", 10e9, 30e9, "B/s", "2 threads, 128 MiB arrays"});
  p.record_file = "F";
  Disturbance d = JudgeDisturbance({}, p);
  EXPECT_TRUE(d.disturbed);
  EXPECT_EQ(d.reason.find("the peak probes before"), 0u) << d.reason;
  EXPECT_NE(d.reason.find("; the start-up STREAM triad 10.0 GB/s is 33.3% of this machine's record 30.0 GB/s "
                          "(2 threads, 128 MiB arrays), more than 15% below it (record: F)"),
            std::string::npos)
      << d.reason;
  EXPECT_EQ(d.reason.find("FMA peak probe"), std::string::npos) << d.reason;
  // The one a rank would carry: the triad, at a third of its record.
  std::optional<RecordCheck> worst = WorstRecordCheck(p);
  ASSERT_TRUE(worst.has_value());
  EXPECT_EQ(worst->what, "start-up STREAM triad");
  EXPECT_FALSE(WorstRecordCheck(PeakProbes{1e9, 1e9}).has_value());
}

TEST(DisturbedTest, NoRecordOrABrokenFigureIsNotJudged) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (RecordCheck c : {RecordCheck{"a", 1e9, 0}, RecordCheck{"b", 1e9, -5e9}, RecordCheck{"c", 0, 100e9},
                        RecordCheck{"d", nan, 100e9}, RecordCheck{"e", 1e9, nan}}) {
    PeakProbes p;
    p.records.push_back(c);
    EXPECT_FALSE(BelowRecord(c)) << c.what;
    EXPECT_FALSE(JudgeDisturbance({}, p).disturbed) << c.what;
    EXPECT_FALSE(WorstRecordCheck(p).has_value()) << c.what;
  }
  EXPECT_EQ(DescribeRecords(PeakProbes{}), "");
}

TEST(DisturbedTest, NoCeilingOrNonFiniteRateIsNotJudged) {
  EXPECT_FALSE(JudgeDisturbance({{"MFU", 1e9, 0}}).disturbed);
  EXPECT_FALSE(JudgeDisturbance({{"MFU", std::numeric_limits<double>::quiet_NaN(), 1e9}}).disturbed);
  EXPECT_FALSE(JudgeDisturbance({{"MFU", 1e9, std::numeric_limits<double>::infinity()}}).disturbed);
}

TEST(DisturbedTest, LabelRoundTrip) {
  Disturbance d = JudgeDisturbance({{"MFU", 2, 1}});
  const std::string label = DisturbedLabel(d, "test-tiny full attention; peak: --peak_flops");
  EXPECT_EQ(label.rfind("DISTURBED: MFU 200.00% > 100%", 0), 0u) << label;
  EXPECT_EQ(DisturbedReasonFromLabel(label), d.reason);
  EXPECT_EQ(DisturbedReasonFromLabel(DisturbedLabel(d, "")), d.reason);
  EXPECT_EQ(DisturbedLabel(Disturbance{}, "plain"), "plain");
  EXPECT_FALSE(DisturbedReasonFromLabel("plain").has_value());
}

}  // namespace
}  // namespace accounting
