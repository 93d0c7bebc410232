// Fuzzes the gate's reading of baseline files (tools/gate/gate_baseline.h): the checks gate runs
// before comparing (ValidateBaseline, then ParseRun), what gate --update does with the file it
// finds (ValidateBaseline, then MergeBaseline), and the listing of other machines' baselines
// (OtherMachinesBaselines reads every file of the suite in the folder). Input = the file's bytes.
// Properties: bad input is an error, never an exception or a crash; errors name the file; a
// merged baseline is itself a valid baseline of the same key that ParseRun reads.
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "fuzz/fuzz_util.h"
#include "tools/gate/gate_baseline.h"
#include "tools/gate/gate_compare.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  // Another machine's file in the folder gate lists when it finds no baseline of its own.
  gate::MachineKey other;
  other.fields = {{"cpu.family", "0"}, {"cpu.model", "fuzz"}};
  {
    const std::string path = fuzz::ScratchDir() + "/another_machine__quick.json";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    FUZZ_CHECK(f != nullptr);
    FUZZ_CHECK(std::fwrite(text.data(), 1, text.size(), f) == text.size());
    std::fclose(f);
    FUZZ_CHECK(gate::OtherMachinesBaselines(fuzz::ScratchDir(), "quick", other).size() == 1);
  }

  const std::string path = "baseline.json";
  auto j = gate::ParseJson(text, path);
  if (!j.ok()) return 0;
  // The key of the file itself, so that a well-formed file passes the key check.
  gate::MachineKey key = other;
  if (j->is_object() && j->contains("machine")) {
    if (auto k = gate::KeyFromJson((*j)["machine"]); k.ok()) key = *k;
  }
  if (absl::Status s = gate::ValidateBaseline(*j, key, path); !s.ok()) {
    FUZZ_CHECK(absl::StrContains(s.message(), path));
    return 0;
  }

  // gate: compare with the baseline.
  auto base = gate::ParseRun(*j, path);
  if (base.ok()) {
    auto cmp = gate::Compare(*base, *base, gate::CompareOptions());
    if (cmp.ok()) FUZZ_CHECK(cmp->Count(gate::CaseStatus::kRegressed) == 0);
  }

  // gate --update: merge a run into the file found (the run: the file's own cases, when it
  // reads as a run, else an empty one).
  gate::Run current;
  current.source = "current.json";
  if (base.ok()) current = *base;
  for (int pool : {1, 3}) {
    gate::UpdateStats stats;
    nlohmann::json merged = gate::MergeBaseline(&*j, current, key, "quick", /*require_verified=*/false,
                                                "2024-01-01T00:00:00Z", &stats, pool);
    FUZZ_CHECK_OK(gate::ValidateBaseline(merged, key, "merged.json"));
    FUZZ_CHECK_OK(gate::ParseRun(merged, "merged.json").status());
    FUZZ_CHECK(stats.updated_cases + stats.skipped_unverified == static_cast<int>(current.order.size()));
  }
  return 0;
}
