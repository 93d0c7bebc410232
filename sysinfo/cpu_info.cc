// Reads /proc/cpuinfo and /sys/devices/system/cpu for CpuInfo.
#include "sysinfo/cpu_info.h"

#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace sysinfo {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "512K" / "32768K" / "16M" -> bytes; 0 when unparseable.
long ParseCacheSize(const std::string& s) {
  std::string t = Trim(s);
  if (t.empty()) return 0;
  char* end = nullptr;
  long v = std::strtol(t.c_str(), &end, 10);
  if (end == t.c_str()) return 0;
  if (*end == 'K') v *= 1024;
  if (*end == 'M') v *= 1024 * 1024;
  return v;
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

}  // namespace

std::string CpuInfo::IsaString() const {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(avx2, "AVX2");
  add(avx512f, "AVX-512F");
  add(fma, "FMA");
  add(avx512_bf16, "AVX512-BF16");
  add(amx, "AMX");
  return s;
}

std::string CpuInfo::IsaLevel() const {
  if (amx) return "AMX";
  if (avx512_bf16) return "AVX512-BF16";
  if (avx512f) return "AVX-512";
  if (avx2) return "AVX2";
  return "SSE";
}

std::string CpuInfo::Signature() const {
  return "family " + std::to_string(family) + " model " + std::to_string(model_number) + " stepping " +
         std::to_string(stepping);
}

int CpuInfo::Fp32Lanes() const {
  if (avx512f) return 16;
  if (avx2) return 8;
  return 4;
}

CpuInfo ReadCpuInfo() {
  CpuInfo info;
  info.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  std::set<std::string> physical_ids;
  int cores_per_socket = 0;
  bool first_flags = true;
  while (std::getline(f, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon));
    std::string value = Trim(line.substr(colon + 1));
    if (key == "model name" && info.model == "unknown")
      info.model = value;
    else if (key == "vendor_id" && info.vendor == "unknown")
      info.vendor = value;
    else if (key == "cpu family" && info.family < 0)
      info.family = std::atoi(value.c_str());
    else if (key == "model" && info.model_number < 0)
      info.model_number = std::atoi(value.c_str());
    else if (key == "stepping" && info.stepping < 0)
      info.stepping = std::atoi(value.c_str());
    else if (key == "physical id")
      physical_ids.insert(value);
    else if (key == "cpu cores" && cores_per_socket == 0)
      cores_per_socket = std::atoi(value.c_str());
    else if (key == "cpu MHz" && info.mhz == 0)
      info.mhz = std::atof(value.c_str());
    else if (key == "flags" && first_flags) {
      first_flags = false;
      std::istringstream flags(value);
      std::string flag;
      while (flags >> flag) {
        if (flag == "avx2") info.avx2 = true;
        if (flag == "avx512f") info.avx512f = true;
        if (flag == "fma") info.fma = true;
        if (flag == "avx512_bf16") info.avx512_bf16 = true;
        if (flag == "amx_tile") info.amx = true;
      }
    }
  }
  std::ifstream mem("/proc/meminfo");
  while (std::getline(mem, line)) {
    if (line.rfind("MemTotal:", 0) == 0) {
      info.memory_bytes = std::atol(line.c_str() + 9) * 1024L;  // "MemTotal:  24570000 kB"
      break;
    }
  }
  int sockets = physical_ids.empty() ? 1 : static_cast<int>(physical_ids.size());
  info.physical_cores = cores_per_socket * sockets;
  for (int idx = 0; idx < 8; ++idx) {
    std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::string level = ReadFirstLine(base + "level");
    if (level.empty()) break;
    long size = ParseCacheSize(ReadFirstLine(base + "size"));
    if (level == "2") info.l2_bytes = size;
    if (level == "3") info.l3_bytes = size;
  }
  return info;
}

int AffinityCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

}  // namespace sysinfo
