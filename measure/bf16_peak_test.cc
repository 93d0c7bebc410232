// The bf16 loops: what each instruction computes (so the FLOP count is honest), argument errors,
// and the AMX permission's refusal, real and simulated.
#include "measure/bf16_peak.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"

namespace micro {
namespace {

// bf16(1e-3) as a float: the loops' operands, rounded as the loops round them.
float Bf16Of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = ((u + 0x7fff + ((u >> 16) & 1)) >> 16) << 16;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

TEST(Bf16PeakTest, FlopsPerStep) {
  EXPECT_EQ(Bf16FlopsPerStep(Bf16Isa::kAvx512Bf16), 24 * 16 * 2 * 2);  // 24 zmm x 16 lanes x 2 pairs
  EXPECT_EQ(Bf16FlopsPerStep(Bf16Isa::kAmx), 4 * 16 * 16 * 32 * 2);   // 4 tiles x 16 x 16 x 32
}

TEST(Bf16PeakTest, Avx512Bf16LoopComputesTwoProductsPerLane) {
  if (!Bf16IsaSupported(Bf16Isa::kAvx512Bf16)) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  absl::StatusOr<Bf16PeakResult> r = RunBf16Loop(Bf16Isa::kAvx512Bf16, 3, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  const double ab = static_cast<double>(Bf16Of(1e-3f)) * Bf16Of(1e-3f);
  // 16 lanes of each of 24 chains start at 0.01 * (i + 1) and gain 2ab per step.
  double want = 0;
  for (int i = 0; i < 24; ++i) want += 16 * (0.01 * (i + 1) + 3 * 2 * ab);
  EXPECT_NEAR(r->checksum, want, 1e-4 * want);
  EXPECT_EQ(r->flops, 3.0 * Bf16FlopsPerStep(Bf16Isa::kAvx512Bf16));
  EXPECT_EQ(r->threads, 1);
}

TEST(Bf16PeakTest, AmxLoopComputesSixteenBySixteenByThirtyTwo) {
  if (!Bf16IsaSupported(Bf16Isa::kAmx)) GTEST_SKIP() << "this CPU has no AMX-BF16";
  if (absl::Status s = RequestAmxTileData(); !s.ok()) GTEST_SKIP() << s;
  absl::StatusOr<Bf16PeakResult> r = RunBf16Loop(Bf16Isa::kAmx, 5, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  const double ab = static_cast<double>(Bf16Of(1e-3f)) * Bf16Of(1e-3f);
  // Per thread: 4 tiles x 256 accumulators, each 32 products per step, from zero.
  const double want = 2 * 4 * 256 * 32 * 5 * ab;
  EXPECT_NEAR(r->checksum, want, 1e-4 * want);
  EXPECT_EQ(r->flops, 2 * 5.0 * Bf16FlopsPerStep(Bf16Isa::kAmx));
}

TEST(Bf16PeakTest, BadArgumentsAndMissingUnitsAreErrors) {
  const Bf16Isa any = Bf16IsaSupported(Bf16Isa::kAvx512Bf16) ? Bf16Isa::kAvx512Bf16 : Bf16Isa::kAmx;
  if (Bf16IsaSupported(any)) {
    EXPECT_EQ(RunBf16Loop(any, 0).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(RunBf16Loop(any, 10, -1).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_FALSE(MeasureBf16Peak(any, 0, 1).ok());
    EXPECT_FALSE(MeasureBf16Peak(any, 0.01, 0).ok());
  }
  for (Bf16Isa isa : {Bf16Isa::kAvx512Bf16, Bf16Isa::kAmx}) {
    if (Bf16IsaSupported(isa)) continue;
    absl::StatusOr<Bf16PeakResult> r = RunBf16Loop(isa, 10);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(r.status().message().find(Bf16IsaName(isa)), std::string::npos) << r.status();
  }
}

TEST(Bf16PeakTest, RefusedAmxPermissionSaysWhyAndWhatItNeeds) {
  int calls = 0;
  absl::Status s = RequestAmxTileData([&](int code, unsigned long arg) -> long {
    ++calls;
    EXPECT_EQ(code, 0x1023);  // ARCH_REQ_XCOMP_PERM
    EXPECT_EQ(arg, 18u);      // XFEATURE_XTILEDATA
    return -EINVAL;           // what a kernel before 5.16 answers
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  const std::string m(s.message());
  EXPECT_NE(m.find("the kernel refused AMX tile data"), std::string::npos) << m;
  EXPECT_NE(m.find("ARCH_REQ_XCOMP_PERM"), std::string::npos) << m;
  EXPECT_NE(m.find(std::strerror(EINVAL)), std::string::npos) << m;
  EXPECT_NE(m.find("Linux 5.16"), std::string::npos) << m;
  EXPECT_TRUE(RequestAmxTileData([](int, unsigned long) -> long { return 0; }).ok());
}

TEST(Bf16PeakTest, SimulatedRefusalThroughTheEnvironment) {
  ASSERT_EQ(setenv(kRefuseAmxEnv, "1", 1), 0);
  absl::Status s = RequestAmxTileData();
  unsetenv(kRefuseAmxEnv);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(std::strerror(EPERM)), std::string::npos) << s;
}

TEST(Bf16PeakTest, CpuPeakIsTheFasterLoopOrSaysWhyNone) {
  absl::StatusOr<CpuBf16Peak> p = MeasureCpuBf16Peak(0.002, 2, 1);
  const bool any = Bf16IsaSupported(Bf16Isa::kAvx512Bf16) || Bf16IsaSupported(Bf16Isa::kAmx);
  if (!any) {
    EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(p.status().message().find("no bf16 loop can run on this CPU"), std::string::npos);
    EXPECT_EQ(DescribeCpuBf16Units(), "none");
    return;
  }
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(p->best.flops_per_s, 0);
  if (p->avx512_bf16) {
    EXPECT_GE(p->best.flops_per_s, p->avx512_bf16->flops_per_s);
  }
  if (p->amx) {
    EXPECT_GE(p->best.flops_per_s, p->amx->flops_per_s);
  }
  // Whatever was not measured is named with its reason.
  EXPECT_EQ(p->notes.size(), (p->avx512_bf16 ? 0u : 1u) + (p->amx ? 0u : 1u));
  EXPECT_NE(p->Describe(2).find(Bf16IsaInstruction(p->best.isa)), std::string::npos);
}

}  // namespace
}  // namespace micro
