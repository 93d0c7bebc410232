// ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA: which variable counts, and whether oneDNN honours its
// value; a value it ignores is never reported as forcing the kernel.
#include "sysinfo/gemm_libs.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace sysinfo {
namespace {

TEST(OneDnnIsaCapTest, PrecedenceAndAcceptedValues) {
  EXPECT_TRUE(ParseOneDnnIsaCap("", "").variable.empty());
  OneDnnIsaCap c = ParseOneDnnIsaCap("avx2", "ALL");  // ONEDNN_ wins, any case
  EXPECT_EQ(c.variable, "ONEDNN_MAX_CPU_ISA");
  EXPECT_TRUE(c.honoured);
  EXPECT_EQ(c.Note("dispatch"), "capped by ONEDNN_MAX_CPU_ISA=avx2");
  c = ParseOneDnnIsaCap("", "AVX512_CORE_BF16");
  EXPECT_EQ(c.variable, "DNNL_MAX_CPU_ISA");
  EXPECT_TRUE(c.honoured);
  for (const char* ignored : {"bogus", "AVX512_MIC", "avx-512", "AVX512"}) {
    c = ParseOneDnnIsaCap(ignored, "");
    EXPECT_FALSE(c.honoured) << ignored;
    const std::string note = c.Note("the library's CPU dispatch");
    EXPECT_NE(note.find(std::string("ONEDNN_MAX_CPU_ISA=") + ignored + " is ignored by oneDNN (it accepts ALL, "
                                                                       "AVX512_CORE_AMX"),
              std::string::npos)
        << note;
    EXPECT_NE(note.find("): the library's CPU dispatch"), std::string::npos) << note;
  }
}

TEST(OneDnnIsaCapTest, LibraryIsNotForcedByAValueItIgnores) {
  setenv("ONEDNN_MAX_CPU_ISA", "bogus", 1);
  const GemmLibrary lib = OneDnnLibrary();
  unsetenv("ONEDNN_MAX_CPU_ISA");
  EXPECT_FALSE(lib.forced);
  EXPECT_NE(lib.note.find("ONEDNN_MAX_CPU_ISA=bogus is ignored by oneDNN"), std::string::npos) << lib.note;
}

}  // namespace
}  // namespace sysinfo
