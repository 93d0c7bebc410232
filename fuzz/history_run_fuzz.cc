// Fuzzes what tools/history reads from a benchmark run's JSON (tools/history/run_record.h
// ParseRunText, with and without --commit/--date) and E-divisive over
// the values it would record: input = the file's bytes.
// Properties: bad input is an error, never an exception or a crash; an error names the file; a
// parsed run has rows, a full commit id in lower case, a date in its one stored spelling (RFC
// 3339, UTC: it parses and formats back to itself), finite values, and a named reason for each
// value it dropped; change points lie inside the series, in order, each leaving a segment of at
// least min_size on either side.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "fuzz/fuzz_util.h"
#include "tools/history/edivisive.h"
#include "tools/history/rfc3339.h"
#include "tools/history/run_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.json";
  history::RecordOptions imported;
  imported.commit = "0123456789abcdef0123456789abcdef01234567";
  imported.date = "2026-11-30T12:00:00Z";
  for (const history::RecordOptions& o : {history::RecordOptions{}, imported}) {
    auto run = history::ParseRunText(text, source, o);
    if (!run.ok()) {
      FUZZ_CHECK(absl::StrContains(run.status().message(), source));
      continue;
    }
    const history::RunRecord& r = run->record;
    FUZZ_CHECK(!r.rows.empty());
    FUZZ_CHECK(history::IsFullCommit(r.commit));
    for (char c : r.commit) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
    auto date = history::ParseRfc3339(r.date);
    FUZZ_CHECK(date.ok() && history::FormatUtc(*date) == r.date);
    for (const std::string& d : run->dropped) FUZZ_CHECK(absl::StrContains(d, "counter "));
    FUZZ_CHECK(r.machine_hash.size() == 8);
    std::vector<double> values;
    for (const history::ResultRow& x : r.rows) {
      FUZZ_CHECK(std::isfinite(x.value));
      if (values.size() < 64) values.push_back(x.value);
    }
    history::EDivisiveOptions eo;
    eo.permutations = 19;
    eo.significance = 0.1;
    auto cps = history::EDivisive(values, eo);
    FUZZ_CHECK(cps.ok());
    int last = 0;
    for (const history::ChangePoint& c : *cps) {
      FUZZ_CHECK(c.index >= last + eo.min_size);
      FUZZ_CHECK(c.index <= static_cast<int>(values.size()) - eo.min_size);
      FUZZ_CHECK(c.p_value > 0 && c.p_value < eo.significance);
      last = c.index;
    }
  }
  return 0;
}
