// Measured-ceilings JSON: round trip, atomic write, and errors for bad files.
#include "accounting/ceilings.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

std::string WriteText(const std::string& name, const std::string& text) {
  std::string path = TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

int CountFilesStartingWith(const std::string& dir, const std::string& prefix) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  while (dirent* e = readdir(d)) {
    if (std::string(e->d_name).rfind(prefix, 0) == 0) ++n;
  }
  closedir(d);
  return n;
}

Ceilings Sample() {
  Ceilings c;
  c.machine = "AMD EPYC test";
  c.peak_flops = {{"fp32", 1.96e11}, {"bf16", 3.0e11}};
  c.bandwidth_bytes_per_s = 2.87e10;
  c.method = "AVX2 FMA loop, STREAM copy";
  c.date = "2024-05-01T12:00:00Z";
  return c;
}

TEST(Ceilings, RoundTripAndNoTempFileLeft) {
  const std::string path = TempDir() + "/ceilings_roundtrip.json";
  ASSERT_TRUE(WriteCeilings(path, Sample()).ok());
  absl::StatusOr<Ceilings> c = ReadCeilings(path);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->machine, "AMD EPYC test");
  EXPECT_EQ(c->peak_flops.at("fp32"), 1.96e11);
  EXPECT_EQ(c->peak_flops.at("bf16"), 3.0e11);
  EXPECT_EQ(c->bandwidth_bytes_per_s, 2.87e10);
  EXPECT_EQ(c->method, "AVX2 FMA loop, STREAM copy");
  EXPECT_EQ(c->date, "2024-05-01T12:00:00Z");
  EXPECT_EQ(CountFilesStartingWith(TempDir(), "ceilings_roundtrip.json.tmp"), 0);
  // Overwrite replaces the whole file.
  Ceilings other = Sample();
  other.peak_flops = {{"fp32", 1e9}};
  ASSERT_TRUE(WriteCeilings(path, other).ok());
  EXPECT_EQ(ReadCeilings(path)->peak_flops.count("bf16"), 0u);
}

TEST(Ceilings, GemmRatesRoundTripAndBadOnesAreErrors) {
  const std::string path = TempDir() + "/ceilings_gemm.json";
  Ceilings c = Sample();
  c.gemm_flops_per_s = {{"onednn/NT/M:256/N:2304/K:768/bias", 1.9e11},
                        {"openblas/NN/M:256/N:768/K:3072", 1.8e11}};
  ASSERT_TRUE(WriteCeilings(path, c).ok());
  auto back = ReadCeilings(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->gemm_flops_per_s, c.gemm_flops_per_s);
  c.gemm_flops_per_s["onednn/NN/M:1/N:1/K:1"] = -1;
  EXPECT_FALSE(WriteCeilings(path, c).ok());
  const std::string bad = WriteText("ceilings_gemm_bad.json",
                                    R"({"peak_flops": {"fp32": 1e11}, "gemm_flops_per_s": {"x": "fast"}})");
  auto r = ReadCeilings(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gemm_flops_per_s.x"), std::string::npos) << r.status();
}

// A GEMM rate above its file's own peak for its dtype (over 25%: a busy machine's noise) is refused naming the key
// and both figures, on reading and on writing; a bf16 key is held to the bf16 peak, and a rate
// whose dtype has no peak in the file to nothing.
TEST(Ceilings, AGemmRateAboveItsOwnPeakIsRefused) {
  const std::string path = WriteText(
      "ceilings_gemm_over.json",
      R"({"peak_flops": {"fp32": 1e11}, "gemm_flops_per_s": {"onednn/NT/M:64/N:2304/K:768/bias": 5e15}})");
  auto r = ReadCeilings(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              testing::HasSubstr("gemm_flops_per_s.onednn/NT/M:64/N:2304/K:768/bias = 5e+15 FLOP/s is above the "
                                 "file's own fp32 peak, peak_flops.fp32 = 1e+11 FLOP/s (5000000% of it"));
  Ceilings c = Sample();  // fp32 1.96e11, bf16 3e11
  c.gemm_flops_per_s = {{"onednn/NT/M:1/N:1/K:1", 1.96e11 * 1.2}, {"onednn/bf16/NT/M:1/N:1/K:1", 2.9e11}};
  EXPECT_TRUE(WriteCeilings(TempDir() + "/ceilings_gemm_ok.json", c).ok());  // within 25%; bf16 under its own
  c.gemm_flops_per_s["onednn/bf16/NT/M:1/N:1/K:1"] = 3.0e11 * 1.3;
  const absl::Status w = WriteCeilings(TempDir() + "/ceilings_gemm_over2.json", c);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(std::string(w.message()), testing::HasSubstr("above the file's own bf16 peak"));
  c.peak_flops = {{"fp32", 1.96e11}};  // no bf16 figure: the bf16 rate is not held to fp32's
  EXPECT_TRUE(WriteCeilings(TempDir() + "/ceilings_gemm_ok2.json", c).ok());
}

TEST(Ceilings, MeasuredPeakSaysWhereItCameFrom) {
  const std::string path = TempDir() + "/ceilings_peak.json";
  ASSERT_TRUE(WriteCeilings(path, Sample()).ok());
  absl::StatusOr<Ceilings> c = ReadCeilings(path);
  ASSERT_TRUE(c.ok());
  absl::StatusOr<Peak> p = MeasuredPeak(*c, Dtype::kFp32, path);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->flops_per_s, 1.96e11);
  EXPECT_EQ(p->bytes_per_s, 2.87e10);
  EXPECT_EQ(p->source.rfind("measured: " + path, 0), 0u) << p->source;
  absl::StatusOr<Peak> missing = MeasuredPeak(*c, Dtype::kFp8, path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no fp8"), std::string::npos);
  EXPECT_NE(missing.status().message().find("bf16, fp32"), std::string::npos) << missing.status();
}

TEST(Ceilings, BadFilesAreErrorsNamingThePath) {
  absl::StatusOr<Ceilings> none = ReadCeilings(TempDir() + "/does_not_exist.json");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("does_not_exist.json"), std::string::npos);

  EXPECT_FALSE(ReadCeilings(WriteText("bad1.json", "{not json")).ok());
  EXPECT_FALSE(ReadCeilings(WriteText("bad2.json", "[1, 2]")).ok());
  EXPECT_FALSE(ReadCeilings(WriteText("bad3.json", R"({"peak_flops": {"int8": 1e12}})")).ok());
  EXPECT_FALSE(ReadCeilings(WriteText("bad4.json", R"({"peak_flops": {"fp32": "fast"}})")).ok());
  EXPECT_FALSE(ReadCeilings(WriteText("bad5.json", R"({"bandwidth_bytes_per_s": -5})")).ok());
  absl::StatusOr<Ceilings> bad_key = ReadCeilings(WriteText("bad6.json", R"({"peak_flops": {"FP32": 1}})"));
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("'FP32'"), std::string::npos) << bad_key.status();
}

// A peak of 1e-300 printed "MFU inf%", one of 1e308 "MFU 0.00%": both refused, naming the
// value and the band (accounting/plausible.h); 0 stays "no figure".
TEST(Ceilings, FiguresOutsideThePhysicalBandsAreRefused) {
  for (const char* v : {"1e-300", "1e308", "5e7", "2e16"}) {
    absl::StatusOr<Ceilings> c =
        ReadCeilings(WriteText("absurd_peak.json", absl::StrCat(R"({"peak_flops": {"fp32": )", v, "}}")));
    ASSERT_FALSE(c.ok()) << v;
    EXPECT_NE(c.status().message().find("peak_flops.fp32 = "), std::string::npos) << c.status();
    EXPECT_NE(c.status().message().find("outside the plausible band 1e+08 to 1e+16 FLOP/s"), std::string::npos)
        << c.status();
  }
  absl::StatusOr<Ceilings> bw = ReadCeilings(
      WriteText("absurd_bw.json", R"({"peak_flops": {"fp32": 1e11}, "bandwidth_bytes_per_s": 1e300})"));
  ASSERT_FALSE(bw.ok());
  EXPECT_NE(bw.status().message().find("bandwidth_bytes_per_s = 1e+300 B/s is outside the plausible band"),
            std::string::npos)
      << bw.status();
  EXPECT_TRUE(ReadCeilings(WriteText("zero_bf16.json", R"({"peak_flops": {"fp32": 1e11, "bf16": 0}})")).ok());
  Ceilings c = Sample();
  c.peak_flops["fp32"] = 1e-300;
  EXPECT_FALSE(WriteCeilings(TempDir() + "/absurd_write.json", c).ok());
}

TEST(Ceilings, ParseErrorsGiveLineAndColumn) {
  absl::StatusOr<Ceilings> c = ReadCeilings(WriteText("ceilings_syntax.json", "{\n  \"peak_flops\": {\n    \"fp32\": ,\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("ceilings_syntax.json"), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find("(line 3, column 13)"), std::string::npos) << c.status();
}

TEST(Ceilings, CacheResidentBandwidthIsLabelledAndKept) {
  // 4 MiB arrays (`ceilings --sizes=quick`) on a 32 MiB cache: under STREAM's 4x rule.
  EXPECT_TRUE(StreamFigureIsCacheResident(int64_t{4} << 20, int64_t{32} << 20));
  EXPECT_FALSE(StreamFigureIsCacheResident(int64_t{128} << 20, int64_t{32} << 20));
  EXPECT_TRUE(StreamFigureIsCacheResident(int64_t{4} << 20, 0));  // unknown cache: under 64 MiB
  const std::string path = TempDir() + "/ceilings_quick.json";
  Ceilings c = Sample();
  c.stream_array_bytes = int64_t{4} << 20;
  c.bandwidth_cache_resident = true;
  ASSERT_TRUE(WriteCeilings(path, c).ok());
  absl::StatusOr<Ceilings> back = ReadCeilings(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->bandwidth_cache_resident);
  EXPECT_EQ(back->stream_array_bytes, int64_t{4} << 20);
  absl::StatusOr<Peak> p = MeasuredPeak(*back, Dtype::kFp32, path);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->bandwidth_cache_resident);
  // An older file (no label, no array size) is a DRAM figure, as it always was.
  absl::StatusOr<Ceilings> old =
      ReadCeilings(WriteText("ceilings_old.json", R"({"peak_flops": {"fp32": 1e11}, "bandwidth_bytes_per_s": 3e10})"));
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->bandwidth_cache_resident);
  EXPECT_FALSE(ReadCeilings(WriteText("ceilings_badlabel.json", R"({"bandwidth_cache_resident": "yes"})")).ok());
}

TEST(Ceilings, WriteRejectsBadValuesAndUnwritablePaths) {
  Ceilings c = Sample();
  c.peak_flops["int4"] = 1;
  EXPECT_FALSE(WriteCeilings(TempDir() + "/x.json", c).ok());
  EXPECT_FALSE(WriteCeilings("/nonexistent_dir/x.json", Sample()).ok());
}

}  // namespace
}  // namespace accounting
