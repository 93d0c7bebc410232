// //micro:allreduce — all-reduce bandwidth across message sizes: MPI_Allreduce on host memory
// (CPU) or NCCL on device memory (one GPU per rank). Run under mpirun:
//   mpirun -np N bazel-out/k8-opt/bin/micro/allreduce/allreduce [--device=cpu|cuda] [--max_bytes=...]
//          [--benchmark_out=FILE] [--benchmark_format=console|json|csv]
// Per size: the slowest rank's mean time per all-reduce (after warm-up), algbw = bytes / time and
// busbw = algbw x 2(n-1)/n (nccl-tests). fp32 sum. The MPI result is checked (every element =
// n(n+1)/2 when rank r contributes r+1); the NCCL one is not yet (said in the output, and its
// JSON entries carry no "verified" counter, so tools/gate calls them UNVERIFIED).
// It times its own loop instead of running Google Benchmark, but takes the Google Benchmark flags
// every other benchmark binary takes for its output: --benchmark_format (what stdout holds: the
// table, or the report as JSON or CSV with the table on stderr, as Google Benchmark binaries do),
// --benchmark_out and --benchmark_out_format (json, the one format this file is written in).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <mpi.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/allreduce_bw.h"
#include "comm/cluster_link.h"
#include "comm/mpi_world.h"
#include "comm/nccl.h"
#include "harness/benchmark_json.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"

ABSL_FLAG(std::string, device, "cpu", "cpu (MPI_Allreduce, host memory) or cuda (NCCL, one GPU per rank)");
ABSL_FLAG(int64_t, min_bytes, 1024, "smallest message, bytes (multiple of 4)");
ABSL_FLAG(int64_t, max_bytes, 16 << 20, "largest message, bytes; sizes double from min_bytes");
ABSL_FLAG(int, warmup, 5, "untimed all-reduces per size");
ABSL_FLAG(int, iters, 20, "timed all-reduces per size");
ABSL_FLAG(double, timeout_s, 120,
          "a collective that takes longer ends the rank with an error, exit 5 (a peer died or hung)");
ABSL_FLAG(
    std::string, benchmark_out, "",
    "rank 0 writes Google Benchmark JSON here: one iteration entry per size (real_time: the slowest "
    "rank's time per all-reduce, us), the run context, counters bytes, algbw, busbw (bytes/s), verified "
    "(MPI only); tools/gate and compare.py read it");
ABSL_FLAG(std::string, benchmark_out_format, "json",
          "the format of --benchmark_out: json, the only one this binary writes (Google Benchmark's flag)");
ABSL_FLAG(
    std::string, benchmark_format, "console",
    "what rank 0 prints on stdout (Google Benchmark's flag): console (the table), json (the report "
    "--benchmark_out writes) or csv (Google Benchmark's CSV columns and counters); with json or csv the "
    "table and the other lines go to stderr");

namespace {

constexpr char kUsage[] =
    "allreduce: all-reduce bandwidth (algbw, busbw) across message sizes, fp32 sum.\n"
    "  mpirun -np N allreduce [--device=cpu|cuda] [--min_bytes=1024] [--max_bytes=16777216]\n"
    "         [--warmup=5] [--iters=20] [--benchmark_out=FILE] [--benchmark_format=console|json|csv]\n"
    "busbw = algbw x 2(n-1)/n (nccl-tests). MPI results are verified; NCCL ones are not yet.\n"
    "Across hosts: //tools:cluster -- --hosts=2 --rate=1gbit allreduce [flags]: each size's busbw is\n"
    "also given as a share of the shaped link (column 'of link', counter busbw_of_link).\n"
    "--benchmark_format=json or csv: stdout holds the report (as --benchmark_out's JSON, or Google\n"
    "Benchmark's CSV), the table goes to stderr. --benchmark_out_format: json only.\n"
    "Exit status: 0 success (or NCCL unusable: skipped, said with the table); 1 a wrong MPI result;\n"
    "2 bad input (the message names the flag) or an output file not written; 5 a rank waited\n"
    "longer than --timeout_s for the others (one died or hung).";

comm::MpiWorld* g_world = nullptr;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ProcessCpuSeconds() {
  timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

[[noreturn]] void Fail(const std::string& msg) {
  std::fprintf(stderr, "allreduce: error: %s\n", msg.c_str());
  comm::MpiWorld::Abort(1);
}

struct Options {
  std::string device;
  int64_t min_bytes = 0, max_bytes = 0;
  int warmup = 0, iters = 0;
  std::string format;  // --benchmark_format: console, json or csv
  bool cuda() const { return device == "cuda"; }
  // Where the table and the progress lines go: stdout, unless stdout holds a JSON or CSV report.
  std::FILE* table() const { return format == "console" ? stdout : stderr; }
};

// The flags, or "" and the error naming the flag.
Options ReadOptions(std::string* bad) {
  Options o;
  o.device = absl::GetFlag(FLAGS_device);
  o.min_bytes = absl::GetFlag(FLAGS_min_bytes), o.max_bytes = absl::GetFlag(FLAGS_max_bytes);
  o.warmup = absl::GetFlag(FLAGS_warmup), o.iters = absl::GetFlag(FLAGS_iters);
  o.format = absl::GetFlag(FLAGS_benchmark_format);
  const std::string out_format = absl::GetFlag(FLAGS_benchmark_out_format);
  if (o.format != "console" && o.format != "json" && o.format != "csv") {
    *bad = absl::StrCat("--benchmark_format=", o.format, ": allowed: console, json, csv");
  } else if (out_format != "json") {
    *bad = absl::StrCat("--benchmark_out_format=", out_format,
                        ": allowed: json (the one format allreduce writes "
                        "to --benchmark_out; --benchmark_format=csv or console prints the others on stdout)");
  } else if (o.device != "cpu" && o.device != "cuda") {
    *bad = absl::StrCat("--device=", o.device, " is invalid: cpu or cuda");
  } else if (o.min_bytes < 4 || o.min_bytes % 4) {
    *bad = absl::StrCat("--min_bytes=", o.min_bytes, " is invalid: a multiple of 4, >= 4");
  } else if (o.max_bytes < o.min_bytes) {
    *bad = absl::StrCat("--max_bytes=", o.max_bytes, " is invalid: must be >= --min_bytes");
  } else if (o.iters < 1 || o.warmup < 0) {
    *bad = absl::StrCat("--iters=", o.iters, " / --warmup=", o.warmup, " invalid: iters >= 1, warmup >= 0");
  }
  return o;
}

// An NCCL communicator over every rank, or "" in *skip_reason when some rank cannot use NCCL
// (every rank gets the same answer).
void* InitNccl(std::string* skip_reason) {
  const int W = g_world->size(), r = g_world->rank();
  std::string problem;
  int n = 0;
  if (!comm::nccl::Available())
    problem = "built without the CUDA toolkit (no NCCL)";
  else if (std::string e = comm::nccl::DeviceCount(&n); !e.empty())
    problem = absl::StrCat("no CUDA device: ", e);
  else if (g_world->local_rank() >= n)
    problem = absl::StrCat("local rank ", g_world->local_rank(), " but only ", n, " GPU(s)");
  auto all = g_world->AllgatherStrings(problem);
  if (!all.ok()) Fail(std::string(all.status().message()));
  for (int q = 0; q < W; ++q) {
    if (!(*all)[q].empty()) {
      *skip_reason = absl::StrCat("rank ", q, " cannot use NCCL: ", (*all)[q]);
      return nullptr;
    }
  }
  std::string id(comm::nccl::kUniqueIdBytes, '\0');
  if (r == 0) {
    if (std::string e = comm::nccl::GetUniqueId(&id); !e.empty()) Fail(e);
  }
  if (auto s = g_world->BroadcastBytes(id.data(), id.size()); !s.ok()) Fail(std::string(s.message()));
  void* comm = nullptr;
  if (std::string e = comm::nccl::CommInit(id, r, W, g_world->local_rank(), &comm); !e.empty()) Fail(e);
  return comm;
}

// One message size, measured on every rank.
struct SizeResult {
  int64_t bytes = 0;
  double slowest_s = 0;  // the slowest rank's mean seconds per all-reduce
  double cpu_s = 0;      // the largest process CPU seconds per all-reduce of a rank
  accounting::AllreduceBw bw;
  bool all_verified = false;  // MPI only
};

// This rank's buffer for one size: host memory (MPI) or device memory (NCCL), each element r+1.
struct Buffer {
  std::vector<float> host;
  float* dev = nullptr;
  ~Buffer() {
    if (dev != nullptr) comm::nccl::DeviceFree(dev);
  }
};

// After w warm-up sums starting from r+1 every element is S * W^(w-1), S = W(W+1)/2.
bool WarmupResultRight(const std::vector<float>& host, int warmup) {
  const int W = g_world->size();
  if (warmup == 0) return true;
  double expect = W * (W + 1) / 2.0;
  for (int i = 1; i < warmup; ++i) expect *= W;
  return std::all_of(host.begin(), host.end(),
                     [&](float x) { return std::abs(x - expect) <= 1e-6 * expect; });
}

SizeResult MeasureSize(const Options& o, void* comm, int64_t bytes) {
  const int W = g_world->size(), r = g_world->rank();
  const int64_t n = bytes / 4;
  Buffer buf;
  if (o.cuda()) {
    if (std::string e = comm::nccl::DeviceAlloc(n, static_cast<float>(r + 1), &buf.dev); !e.empty()) Fail(e);
  } else {
    buf.host.assign(n, static_cast<float>(r + 1));
  }
  auto once = [&]() {
    if (o.cuda()) {
      if (std::string e = comm::nccl::AllReduceSumScale(comm, buf.dev, n, 1.0f); !e.empty()) Fail(e);
      return;
    }
    if (auto s = g_world->AllreduceSumFloats(buf.host.data(), n); !s.ok()) Fail(std::string(s.message()));
  };
  for (int i = 0; i < o.warmup; ++i) once();
  bool verified = false;
  if (!o.cuda()) {
    verified = WarmupResultRight(buf.host, o.warmup);
    std::fill(buf.host.begin(), buf.host.end(), 1e-3f);  // keep values small during timing
  }
  if (o.cuda()) {
    if (std::string e = comm::nccl::Synchronize(); !e.empty()) Fail(e);
  }
  if (auto s = g_world->Barrier(); !s.ok()) Fail(std::string(s.message()));
  const double t0 = Now(), c0 = ProcessCpuSeconds();
  for (int i = 0; i < o.iters; ++i) once();
  if (o.cuda()) {
    if (std::string e = comm::nccl::Synchronize(); !e.empty()) Fail(e);
  }
  const double sec = (Now() - t0) / o.iters, cpu = (ProcessCpuSeconds() - c0) / o.iters;
  auto all = g_world->AllgatherDoubles({sec, cpu, verified ? 1.0 : 0.0});
  if (!all.ok()) Fail(std::string(all.status().message()));
  SizeResult res;
  res.bytes = bytes;
  res.all_verified = true;
  for (int q = 0; q < W; ++q) {
    res.slowest_s = std::max(res.slowest_s, (*all)[3 * q]);
    res.cpu_s = std::max(res.cpu_s, (*all)[3 * q + 1]);
    res.all_verified = res.all_verified && (*all)[3 * q + 2] == 1.0;
  }
  auto bw = accounting::AllreduceBandwidth(bytes, res.slowest_s, W);
  if (!bw.ok()) Fail(std::string(bw.status().message()));
  res.bw = *bw;
  return res;
}

std::string HeaderText(const Options& o) {
  std::string text = absl::StrFormat(
      "allreduce: %d rank(s) on %d host(s), %s, fp32 sum, %d warm-up + %d timed per size; busbw = algbw x "
      "2(n-1)/n (nccl-tests)\n",
      g_world->size(), g_world->num_hosts(),
      o.cuda() ? "NCCL on device memory" : "MPI_Allreduce on host memory", o.warmup, o.iters);
  if (const std::string link = comm::LinkDescription(); !link.empty())
    absl::StrAppend(&text, "allreduce: link between hosts: ", link, "\n");
  absl::StrAppendFormat(&text, "%14s %12s %14s %14s %10s%s\n", "bytes", "time us", "algbw GB/s", "busbw GB/s",
                        "verified", comm::LinkRateBps() > 0 ? "    of link" : "");
  return text;
}

std::string RowText(const Options& o, const SizeResult& s) {
  std::string text =
      absl::StrFormat("%14d %12.2f %14.3f %14.3f %10s", s.bytes, s.slowest_s * 1e6, s.bw.algbw / 1e9,
                      s.bw.busbw / 1e9, o.cuda() ? "no" : (s.all_verified ? "yes" : "WRONG"));
  if (const double link = comm::LinkRateBps(); link > 0)
    absl::StrAppendFormat(&text, " %10.1f%%", 100 * s.bw.busbw * 8 / link);
  return text + "\n";
}

std::string g_executable = "allreduce";

// One Google Benchmark iteration entry per size (harness/benchmark_json.h).
std::vector<harness::BenchmarkEntry> Entries(const Options& o, const std::vector<SizeResult>& sizes) {
  std::vector<harness::BenchmarkEntry> entries;
  for (const SizeResult& s : sizes) {
    harness::BenchmarkEntry e;
    e.name = absl::StrCat("BM_Allreduce/", o.cuda() ? "nccl" : "mpi", "/ranks:", g_world->size(),
                          "/bytes:", s.bytes);
    e.family_index = static_cast<int>(entries.size());
    e.iterations = o.iters;
    e.real_time = s.slowest_s * 1e6;
    e.cpu_time = s.cpu_s * 1e6;
    e.time_unit = "us";
    e.counters = {{"bytes", static_cast<double>(s.bytes)},
                  {"algbw", s.bw.algbw},
                  {"busbw", s.bw.busbw},
                  {"ranks", g_world->size()}};
    if (!o.cuda()) e.counters["verified"] = s.all_verified ? 1 : 0;
    if (const double link = comm::LinkRateBps(); link > 0) {
      e.counters["link_bps"] = link;
      e.counters["busbw_of_link"] = s.bw.busbw * 8 / link;  // busbw in bits/s over the shaped rate
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

absl::StatusOr<nlohmann::json> ReportJson(const Options& o, const std::vector<SizeResult>& sizes) {
  return harness::BenchmarkJson(harness::BenchmarkContext(g_executable), Entries(o, sizes));
}

// Google Benchmark 1.7.1's CSV (src/csv_reporter.cc): its ten columns, then one per counter in
// the order the counters were first seen, a quoted name; values in the stream's default format.
std::string CsvText(const std::vector<harness::BenchmarkEntry>& entries) {
  std::vector<std::string> counters;
  for (const harness::BenchmarkEntry& e : entries) {
    for (const auto& [name, value] : e.counters) {
      if (std::find(counters.begin(), counters.end(), name) == counters.end()) counters.push_back(name);
    }
  }
  std::ostringstream out;
  out << "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_"
         "occurred,"
         "error_message";
  for (const std::string& c : counters) out << ",\"" << c << "\"";
  out << "\n";
  for (const harness::BenchmarkEntry& e : entries) {
    out << '"' << e.name << "\"," << e.iterations << "," << e.real_time << "," << e.cpu_time << ","
        << e.time_unit << ",,,,,";
    for (const std::string& c : counters) {
      out << ",";
      if (auto it = e.counters.find(c); it != e.counters.end()) out << it->second;
    }
    out << "\n";
  }
  return out.str();
}

// Rank 0, at the end: the report on stdout (--benchmark_format json or csv) and, when
// `write_out`, the --benchmark_out file. Returns the exit status: 2 when one could not be made
// or written.
int Report(const Options& o, const std::vector<SizeResult>& sizes, bool write_out = true) {
  int rc = 0;
  absl::StatusOr<nlohmann::json> j = ReportJson(o, sizes);
  if (!j.ok()) {
    std::fprintf(stderr, "allreduce: error: %s\n", std::string(j.status().message()).c_str());
    return harness::kExitFailure;
  }
  if (o.format == "json") std::printf("%s\n", j->dump(2).c_str());
  if (o.format == "csv") std::printf("%s", CsvText(Entries(o, sizes)).c_str());
  std::fflush(stdout);
  if (const std::string path = absl::GetFlag(FLAGS_benchmark_out); write_out && !path.empty()) {
    if (absl::Status s = harness::WriteJsonFile("--benchmark_out", path, *j); !s.ok()) {
      std::fprintf(stderr, "allreduce: error: %s\n", std::string(s.message()).c_str());
      rc = harness::kExitFailure;  // a failed write (a full disk): exit 2
    }
  }
  return rc;
}

// Every size from min_bytes, doubling; returns the exit status.
int Run(const Options& o) {
  const int r = g_world->rank();
  void* comm = nullptr;
  if (o.cuda()) {
    std::string skip;
    comm = InitNccl(&skip);
    if (!skip.empty()) {
      if (r == 0) std::fprintf(o.table(), "allreduce: skipped: %s\n", skip.c_str());
      // stdout still holds a report (of no size) when it was asked for one; no --benchmark_out.
      return r == 0 && o.format != "console" ? Report(o, {}, /*write_out=*/false) : 0;
    }
  }
  if (r == 0) std::fprintf(o.table(), "%s", HeaderText(o).c_str());
  std::vector<SizeResult> sizes;
  int rc = 0;
  for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    sizes.push_back(MeasureSize(o, comm, bytes));
    if (r == 0) std::fprintf(o.table(), "%s", RowText(o, sizes.back()).c_str());
    if (!o.cuda() && !sizes.back().all_verified) {
      rc = 1;
      break;
    }
  }
  if (comm != nullptr) comm::nccl::CommDestroy(comm);
  if (r == 0) {
    if (int report_rc = Report(o, sizes); report_rc != 0) rc = report_rc;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (harness::WantsHelp(argc, argv)) {
    harness::PrintFlagsHelp(kUsage);
    return 0;
  }
  g_executable = argv[0];
  auto world_or = comm::MpiWorld::Init(&argc, &argv, 120);
  if (!world_or.ok()) {
    return harness::Fail("allreduce", world_or.status());
  }
  g_world = *world_or;
  absl::ParseCommandLine(argc, argv);
  g_world->set_timeout_s(absl::GetFlag(FLAGS_timeout_s));
  std::string bad;
  const Options o = ReadOptions(&bad);
  if (!bad.empty()) {
    if (g_world->rank() == 0) std::fprintf(stderr, "allreduce: error: %s\n", bad.c_str());
    comm::MpiWorld::Finalize();
    return 2;
  }
  const int rc = Run(o);
  comm::MpiWorld::Finalize();
  return rc;
}
