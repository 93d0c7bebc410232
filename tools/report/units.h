// Number formatting for the report's tables and chart labels: SI prefixes, times, percents.
// A missing or non-finite value is written as kMissing, never "nan" or "inf".
#ifndef TOOLS_REPORT_UNITS_H_
#define TOOLS_REPORT_UNITS_H_

#include <optional>
#include <string>

namespace report {

inline constexpr char kMissing[] = "\xe2\x80\x94";  // an em dash

// "151.2 GFLOP/s", "31.4 GB/s", "2.5 k": three significant digits and an SI prefix
// (k, M, G, T, P, E; m, u, n below 1). `unit` may be empty.
std::string FormatSi(std::optional<double> v, const std::string& unit = "");

// Seconds as "812 ns", "3.51 us", "1.25 ms", "2.40 s".
std::string FormatSeconds(std::optional<double> seconds);

// "71.2%" (one decimal).
std::string FormatPercent(std::optional<double> percent);

// "%.3g".
std::string FormatPlain(std::optional<double> v);

// A tick label for a log axis: "1", "10", "100", "1k", "10G", "0.1", "0.01".
std::string FormatTick(double v);

}  // namespace report

#endif  // TOOLS_REPORT_UNITS_H_
