// Fuzzes what the gate reads from a benchmark run's JSON (tools/gate/gate_io.h ParseJson,
// tools/gate/gate_run.h ParseRun, tools/gate/gate_key.h KeyFromContext, tools/gate/gate_compare.h Compare of
// the run with itself, stored and A/B, and the report tables): input = the file's bytes.
// Properties: bad input is an error, never an exception or a crash; an error names the file;
// every case of a parsed run has at least one entry; a run compared with itself regresses
// nowhere.
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "fuzz/fuzz_util.h"
#include "tools/gate/gate_compare.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_report.h"
#include "tools/gate/gate_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.json";
  auto j = gate::ParseJson(text, source);
  if (!j.ok()) return 0;
  auto run = gate::ParseRun(*j, source);
  if (!run.ok()) {
    FUZZ_CHECK(absl::StrContains(run.status().message(), source));
    return 0;
  }
  FUZZ_CHECK(run->order.size() == run->cases.size());
  for (const std::string& name : run->order) FUZZ_CHECK(!run->cases.at(name).empty());
  (void)gate::RequireResults(*run);
  (void)gate::KeyFromContext(run->context, source);
  (void)gate::SuiteFromContext(run->context);

  for (const char* metric : {"real_time", "cpu_time", "items_per_second", "verified:lower"}) {
    for (bool paired : {false, true}) {
      gate::CompareOptions options;
      auto m = gate::ParseMetric(metric);
      FUZZ_CHECK(m.ok());
      options.metric = *m;
      options.paired = paired;
      options.calibration = "BM_Calibration/cpu/fma";
      options.normalize = !paired;
      auto cmp = gate::Compare(*run, *run, options);
      if (!cmp.ok()) continue;
      FUZZ_CHECK(cmp->Count(gate::CaseStatus::kRegressed) == 0);
      gate::ReportHeader header;
      header.paired = paired;
      (void)gate::FormatTable(header, *cmp, m->is_time());
      (void)gate::FormatMarkdown(header, *cmp, m->is_time());
    }
  }
  return 0;
}
