// Measured-ceilings JSON: round trip, atomic write, and errors for bad files.
#include "accounting/ceilings.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <string>

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
  c.gemm_flops_per_s = {{"onednn/NT/M:256/N:2304/K:768/bias", 2.1e11},
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

TEST(Ceilings, WriteRejectsBadValuesAndUnwritablePaths) {
  Ceilings c = Sample();
  c.peak_flops["int4"] = 1;
  EXPECT_FALSE(WriteCeilings(TempDir() + "/x.json", c).ok());
  EXPECT_FALSE(WriteCeilings("/nonexistent_dir/x.json", Sample()).ok());
}

}  // namespace
}  // namespace accounting
