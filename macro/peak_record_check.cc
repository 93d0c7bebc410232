// The start-up figures against this machine's record (peak_record_check.h).
#include "macro/peak_record_check.h"

#include <errno.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/machine_key.h"
#include "harness/peak_record.h"

namespace macro {
namespace {

void Say(const std::string& line) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, line.c_str());
  std::fflush(stderr);
}

void Warn(const std::string& why) {
  Say(absl::StrCat("WARNING: peak record: ", why,
                   "; this run's start-up figures are not compared with this machine's record (",
                   harness::kPeakRecordEnv, "=FILE keeps it elsewhere, =off turns it off)"));
}

}  // namespace

std::vector<StartupFigure> StartupFigures(accounting::Dtype dtype, double best_probe, int threads,
                                          const std::optional<micro::StreamResult>& stream) {
  std::vector<StartupFigure> out;
  const std::string on = absl::StrCat(threads, threads == 1 ? " thread" : " threads");
  const bool bf16 = dtype == accounting::Dtype::kBf16;
  out.push_back({absl::StrCat(bf16 ? "bf16" : "fp32_fma", "/threads=", threads),
                 absl::StrCat(bf16 ? "bf16" : "FMA", " peak probe (the best of start-up and after)"), on,
                 best_probe, "FLOP/s"});
  if (stream.has_value() && stream->elements > 0) {
    const int64_t mib = stream->elements * 4 >> 20;
    const std::string key = absl::StrCat("/threads=", stream->threads, "/array_mib=", mib);
    const std::string keyed =
        absl::StrCat(stream->threads, stream->threads == 1 ? " thread, " : " threads, ", mib, " MiB arrays");
    out.push_back({"stream_triad" + key, "start-up STREAM triad", keyed, stream->triad_bytes_per_s, "B/s"});
    out.push_back({"stream_copy" + key, "start-up STREAM copy", keyed, stream->copy_bytes_per_s, "B/s"});
    // The roofs the bounds divide by (decode: read; the step's floor: in_place), measured in the
    // same trials; write_nt bounds only decode's few KV-cache bytes and is not judged.
    for (const char* kind : {"read", "in_place"}) {
      auto it = stream->roofs.find(kind);
      if (it == stream->roofs.end() || !(it->second > 0)) continue;
      out.push_back({absl::StrCat("memory_", kind, key), absl::StrCat("start-up ", kind, " memory roof"), keyed,
                     it->second, "B/s"});
    }
  }
  return out;
}

std::vector<accounting::RecordCheck> RecordChecks(const std::vector<StartupFigure>& figures,
                                                  const std::map<std::string, double>& recorded) {
  std::vector<accounting::RecordCheck> out;
  for (const StartupFigure& f : figures) {
    auto it = recorded.find(f.name);
    out.push_back({f.what, f.value, it == recorded.end() ? 0 : it->second, f.unit, f.keyed});
  }
  return out;
}

void ConsultPeakRecord(const std::vector<StartupFigure>& figures, bool may_raise,
                       accounting::PeakProbes* probes) {
  absl::StatusOr<std::optional<std::string>> path = harness::PeakRecordPath();
  if (!path.ok()) return Warn(std::string(path.status().message()));
  if (!path->has_value()) return;  // MLBENCH_PEAK_RECORD=off
  absl::StatusOr<harness::MachineId> machine = harness::ThisMachineId();
  if (!machine.ok()) return Warn(absl::StrCat("this machine has no key: ", machine.status().message()));
  absl::StatusOr<std::map<std::string, double>> recorded = harness::ReadPeakRecord(**path, machine->hash);
  if (!recorded.ok()) return Warn(std::string(recorded.status().message()));
  probes->records = RecordChecks(figures, *recorded);
  probes->record_file = **path;
  // Quiet: the probes' own rules (the rates above their ceilings are judged later, by the caller;
  // a rate above its ceiling means a slow probe, which cannot raise an existing record).
  if (!may_raise || accounting::JudgeDisturbance({}, *probes).disturbed) return;
  std::vector<harness::RecordFigure> raise;
  for (const StartupFigure& f : figures) {
    if (f.value > 0) raise.push_back({f.name, f.value, f.unit});
  }
  absl::StatusOr<std::vector<harness::RecordRaise>> raised =
      harness::RaisePeakRecord(**path, *machine, raise);
  if (!raised.ok()) return Warn(absl::StrCat("not raised: ", raised.status().message()));
  if (raised->empty()) return;
  std::vector<std::string> what;
  for (const harness::RecordRaise& r : *raised) {
    what.push_back(r.from > 0
                       ? absl::StrFormat("%s %.1f -> %.1f G%s", r.name, r.from / 1e9, r.to / 1e9, r.unit)
                       : absl::StrFormat("%s %.1f G%s (first)", r.name, r.to / 1e9, r.unit));
  }
  Say(absl::StrCat("peak record raised by this run's quiet start-up figures (", **path, ", machine key ",
                   machine->hash, "): ", absl::StrJoin(what, ", ")));
}

}  // namespace macro
