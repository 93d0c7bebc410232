// Families, labels and matmul sizes parsed from case names.
#include "tools/report/family.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace report {
namespace {

const char* const kSuffixes[] = {"iterations:", "min_time:", "repeats:", "threads:"};

bool IsRunSuffix(const std::string& part) {
  if (part == "manual_time" || part == "real_time" || part == "process_time") return true;
  for (const char* s : kSuffixes) {
    if (absl::StartsWith(part, s)) return true;
  }
  return false;
}

bool IsParam(const std::string& part) { return part.find(':') != std::string::npos; }

const std::set<std::string>& Dtypes() {
  static const auto* d = new std::set<std::string>{"fp32", "tf32", "bf16", "fp16", "fp8"};
  return *d;
}

std::string Kind(const std::string& first) {
  std::string k = absl::StartsWith(first, "BM_") ? first.substr(3) : first;
  if (k == "Matmul") return "matmul";
  if (k == "Elementwise") return "elementwise";
  if (k == "GptStep") return "gpt_step";
  if (k == "Ceiling") return "ceiling";
  if (k == "Calibration") return "calibration";
  std::string lower;
  for (char c : k) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// "16777216" -> "16M" (powers of two shown in Ki/Mi steps as 1024-based k/M).
std::string CountLabel(const std::string& v) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0' || n <= 0) return v;
  if (n % (1L << 20) == 0) return absl::StrCat(n >> 20, "M");
  if (n % (1L << 10) == 0) return absl::StrCat(n >> 10, "k");
  return v;
}

std::string ParamValue(const std::vector<std::string>& parts, const std::string& key) {
  for (const std::string& p : parts) {
    if (absl::StartsWith(p, key + ":")) return p.substr(key.size() + 1);
  }
  return "";
}

}  // namespace

std::string StripRunSuffixes(const std::string& name) {
  std::vector<std::string> parts = absl::StrSplit(name, '/');
  while (parts.size() > 1 && IsRunSuffix(parts.back())) parts.pop_back();
  return absl::StrJoin(parts, "/");
}

std::string FamilyOf(const std::string& case_name) {
  std::vector<std::string> parts = absl::StrSplit(StripRunSuffixes(case_name), '/');
  const std::string kind = Kind(parts[0]);
  if (kind == "matmul") {
    std::vector<std::string> path;
    for (size_t i = 1; i < parts.size() && !IsParam(parts[i]); ++i) path.push_back(parts[i]);
    return path.empty() ? kind : absl::StrCat(kind, " ", absl::StrJoin(path, "/"));
  }
  if (kind == "gpt_step") {
    // BM_GptStep/<preset>/<device>/<dtype>/...
    return parts.size() > 2 ? absl::StrCat(kind, " ", parts[2]) : kind;
  }
  return parts.size() > 1 && !IsParam(parts[1]) ? absl::StrCat(kind, " ", parts[1]) : kind;
}

std::string DtypeOf(const std::string& case_name) {
  for (absl::string_view p : absl::StrSplit(StripRunSuffixes(case_name), '/')) {
    if (Dtypes().count(std::string(p))) return std::string(p);
  }
  return "";
}

std::optional<MatmulDims> MatmulDimsOf(const std::string& case_name) {
  std::vector<std::string> parts = absl::StrSplit(StripRunSuffixes(case_name), '/');
  if (Kind(parts[0]) != "matmul") return std::nullopt;
  MatmulDims d;
  d.m = std::atol(ParamValue(parts, "M").c_str());
  d.k = std::atol(ParamValue(parts, "K").c_str());
  d.n = std::atol(ParamValue(parts, "N").c_str());
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) return std::nullopt;
  return d;
}

double MatmulDims::EquivalentSize() const {
  if (m == k && k == n) return static_cast<double>(m);
  return std::cbrt(static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n));
}

std::string ShortLabel(const std::string& case_name) {
  std::vector<std::string> parts = absl::StrSplit(StripRunSuffixes(case_name), '/');
  const std::string kind = Kind(parts[0]);
  if (auto d = MatmulDimsOf(case_name)) {
    if (d->m == d->k && d->k == d->n) return absl::StrCat(d->m, "\xc2\xb3");  // "256³"
    return absl::StrCat(d->m, "x", d->k, "x", d->n);
  }
  if (kind == "elementwise" && parts.size() > 2) {
    std::string n = ParamValue(parts, "N");
    return n.empty() ? parts[2] : absl::StrCat(parts[2], " ", CountLabel(n));
  }
  if (kind == "gpt_step" && parts.size() > 1) {
    std::string label = parts[1];
    for (const char* k : {"B", "T"}) {
      std::string v = ParamValue(parts, k);
      if (!v.empty()) absl::StrAppend(&label, " ", k, ":", v);
    }
    std::string data = ParamValue(parts, "data");
    if (!data.empty()) absl::StrAppend(&label, " ", data);
    return label;
  }
  // Drop the kind and device: "fma avx2", "stream_copy bytes:..."
  std::vector<std::string> rest;
  for (size_t i = 2; i < parts.size(); ++i) rest.push_back(parts[i]);
  return rest.empty() ? StripRunSuffixes(case_name) : absl::StrJoin(rest, " ");
}

std::string FamilyColour(int index) {
  static const char* const kPalette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                         "#56b4e9", "#9467bd", "#8c564b", "#5f6b00"};
  const int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((index % n) + n) % n];
}

std::vector<std::string> FamilyOrder(const std::vector<std::string>& families) {
  std::set<std::string> s(families.begin(), families.end());
  return std::vector<std::string>(s.begin(), s.end());
}

}  // namespace report
