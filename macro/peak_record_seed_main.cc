// //macro:peak_record_seed (testonly): writes this machine's record (harness/peak_record.h) from a
// measurement made now, for the tests of the record rule (macro/disturbed_test.sh,
// macro/busy_machine_test.sh): the FMA peak on N threads (the best of 8 probes, each as a run's
// start-up probe measures it) and the STREAM figures at the size gpt_step measures them at start-up,
// each times X, under the names a run compares (macro/peak_record_check.h).
//
//   MLBENCH_PEAK_RECORD=/abs/record.json peak_record_seed --threads=N [--scale=X]
//
// prints "key=<machine key> path=<record>" and one "<name>=<value>" line a figure. X = 1 records
// the quiet figures as they are; X = 3 a record no run on this machine reaches. The record file
// must be named by MLBENCH_PEAK_RECORD: a test tool never writes the user's cache.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/machine_key.h"
#include "harness/peak_record.h"
#include "macro/peak_record_check.h"
#include "measure/cpu_ceilings.h"
#include "measure/stream.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"

namespace {

int Usage(const std::string& why) {
  std::fprintf(
      stderr,
      "peak_record_seed: %s (usage: MLBENCH_PEAK_RECORD=/abs/record.json peak_record_seed --threads=N "
      "[--scale=X], 1 <= N <= 4096, 0 < X <= 1000)\n",
      why.c_str());
  return 2;
}

bool ParseFlag(const std::string& a, const char* name, double* out) {
  const std::string prefix = std::string("--") + name + "=";
  if (a.rfind(prefix, 0) != 0) return false;
  char* end = nullptr;
  *out = std::strtod(a.c_str() + prefix.size(), &end);
  if (end == a.c_str() + prefix.size() || *end != '\0') *out = -1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  double threads = 0, scale = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!ParseFlag(a, "threads", &threads) && !ParseFlag(a, "scale", &scale)) {
      return Usage("unknown argument '" + a + "'");
    }
  }
  if (!(threads >= 1 && threads <= 4096) || threads != static_cast<int>(threads))
    return Usage("bad --threads");
  if (!(scale > 0 && scale <= 1000)) return Usage("bad --scale");
  const char* env = std::getenv(harness::kPeakRecordEnv);
  if (env == nullptr || env[0] != '/')
    return Usage("MLBENCH_PEAK_RECORD must name the record file (absolute)");
  model::SetNumThreads(static_cast<int>(threads));

  double fma = 0;
  int fma_threads = 0;
  for (int probe = 0; probe < 8; ++probe) {
    auto f = micro::MeasureCpuFmaPeak();
    if (!f.ok()) return Usage(std::string(f.status().message()));
    fma = std::max(fma, f->flops_per_s);
    fma_threads = f->threads;
  }
  const int64_t bytes = std::min<int64_t>(micro::StreamArrayBytes(sysinfo::ReadCpuInfo().l3_bytes),
                                          micro::kStartupStreamMaxBytes);  // as gpt_step's start-up
  auto stream = micro::MeasureStream(bytes, 3);
  if (!stream.ok()) return Usage(std::string(stream.status().message()));
  stream->copy_bytes_per_s *= scale;
  stream->triad_bytes_per_s *= scale;
  for (auto& [kind, v] : stream->roofs) v *= scale;

  auto machine = harness::ThisMachineId();
  if (!machine.ok()) return Usage(std::string(machine.status().message()));
  std::vector<harness::RecordFigure> figures;
  for (const macro::StartupFigure& f :
       macro::StartupFigures(accounting::Dtype::kFp32, fma * scale, fma_threads, *stream)) {
    figures.push_back({f.name, f.value, f.unit});
  }
  auto raised = harness::RaisePeakRecord(env, *machine, figures);
  if (!raised.ok()) return Usage(std::string(raised.status().message()));
  std::printf("key=%s path=%s\n", machine->hash.c_str(), env);
  for (const harness::RecordFigure& f : figures) std::printf("%s=%.6e\n", f.name.c_str(), f.value);
  return 0;
}
