// Op families and short labels from case names, and the colour each family gets.
//
//   BM_Matmul/cpu/fp32/M:256/K:256/N:256          family "matmul cpu/fp32", label "256³"
//   BM_Matmul/cpu/onednn/fp32/M:64/K:768/N:2304   family "matmul cpu/onednn/fp32", "64x768x2304"
//   BM_Elementwise/cpu/gelu/N:16777216            family "elementwise cpu", label "gelu 16M"
//   BM_GptStep/gpt2/cpu/fp32/B:4/T:64             family "gpt_step cpu", label "gpt2 B:4 T:64"
//   BM_Ceiling/cpu/fma/avx2                       family "ceiling cpu", label "fma avx2"
// Matmul families are per library (a path part between device and dtype) or dtype, as the
// roofline chapter compares them; everything else is per op kind and device.
#ifndef TOOLS_REPORT_FAMILY_H_
#define TOOLS_REPORT_FAMILY_H_

#include <optional>
#include <string>
#include <vector>

namespace report {

// The case name without Google Benchmark's suffixes (/iterations:N, /min_time:X,
// /manual_time, /real_time, /repeats:N, /threads:N).
std::string StripRunSuffixes(const std::string& name);

std::string FamilyOf(const std::string& case_name);

// A short label for a chart point.
std::string ShortLabel(const std::string& case_name);

// The dtype part of a case name ("fp32", "bf16", ...), or "" when none.
std::string DtypeOf(const std::string& case_name);

struct MatmulDims {
  long m = 0, k = 0, n = 0;
  // A size for the x axis of the sweep: the cube root of M x K x N (M for a cube).
  double EquivalentSize() const;
};
// M, K and N of a BM_Matmul case; nullopt for other cases or missing parts.
std::optional<MatmulDims> MatmulDimsOf(const std::string& case_name);

// Colour of the i-th family (a colour-blind-safe palette, cycled): "#0072b2", ...
std::string FamilyColour(int index);

// The families of `case_names`, sorted, each once: index into it for FamilyColour.
std::vector<std::string> FamilyOrder(const std::vector<std::string>& families);

}  // namespace report

#endif  // TOOLS_REPORT_FAMILY_H_
