// The scaling map from two hand-made sweep files of two machines (testdata/make_sweep_fixtures.py):
// the five charts, one colour per machine, the legend, the knees (recomputed here from the files'
// medians), the planted trend break, the point without a prediction, and bad points.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "harness/machine_key.h"
#include "nlohmann/json.hpp"
#include "tools/report/input_loader.h"
#include "tools/report/report.h"
#include "tools/report/scaling_charts.h"
#include "tools/report/scaling_data.h"

namespace report {
namespace {

const char kA[] = "tools/report/testdata/sweep_machine_a.json";
const char kB[] = "tools/report/testdata/sweep_machine_b.json";

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

Report Build(RunData* data) {
  auto d = LoadRuns({kA, kB});
  EXPECT_TRUE(d.ok()) << d.status();
  *data = *d;
  ReportInputs in;
  in.data = *d;
  in.command = "scaling_report_test";
  return BuildReport(in);
}

int Count(const std::string& text, const std::string& re) {
  const std::regex r(re);
  return static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), r), std::sregex_iterator()));
}

TEST(ScalingReport, KeepsMachinesApartAndDerivesAMissingKey) {
  RunData d;
  Build(&d);
  ASSERT_EQ(d.inputs.size(), 2u);
  EXPECT_EQ(d.inputs[0].machine_key, "1a2b3c4d");  // the context's mlbench_machine_key
  auto rc = nlohmann::json::parse(ReadJson(kB)["context"]["mlbench_run_context"].get<std::string>());
  auto id = harness::MachineIdFromRunContext(rc);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(d.inputs[1].machine_key, id->hash);  // derived: file B has no mlbench_machine_key
  EXPECT_NE(id->hash, "1a2b3c4d");
  EXPECT_EQ(d.cases.size(), 48u) << "24 points per machine, the same names on both: not folded together";
  std::map<std::string, int> per_key;
  for (const Case& c : d.cases) {
    ++per_key[c.machine_key];
    EXPECT_EQ(c.repetitions, 2) << c.name;
  }
  EXPECT_EQ(per_key["1a2b3c4d"], 24);
  EXPECT_EQ(per_key[id->hash], 24);
}

TEST(ScalingReport, WritesTheFiveChartsOneColourPerMachine) {
  RunData d;
  Report r = Build(&d);
  for (const char* f : kScalingFiles) ASSERT_TRUE(r.files.count(f)) << f;
  const std::string& mfu = r.files.at("scaling_mfu.svg");
  EXPECT_EQ(Count(mfu, "class=\"point\""), 48);
  std::map<std::string, std::set<std::string>> fills;  // machine key -> marker colours
  const std::regex marker(
      "<(circle|rect|polygon) "
      "[^>]*fill=\"(#[0-9a-f]{6})\"[^>]*class=\"point\"[^>]*data-machine=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(mfu.begin(), mfu.end(), marker); it != std::sregex_iterator(); ++it)
    fills[(*it)[3]].insert((*it)[2]);
  ASSERT_EQ(fills.size(), 2u);
  for (const auto& [key, colours] : fills) EXPECT_EQ(colours.size(), 1u) << key;
  EXPECT_NE(*fills.begin()->second.begin(), *fills.rbegin()->second.begin());
  for (const char* f : kScalingFiles) {
    const std::string& svg = r.files.at(f);
    EXPECT_NE(svg.find("AMD EPYC 7B13, AVX2, peak 100 GFLOP/s fp32"), std::string::npos) << f;
    EXPECT_NE(svg.find("Intel Xeon Platinum 8481C, AVX-512, peak 240"), std::string::npos) << f;
    EXPECT_EQ(svg.find("nan"), std::string::npos) << f;
  }
  const std::string& html = r.files.at("index.html");
  EXPECT_NE(html.find("<section id=\"scaling\">"), std::string::npos);
  for (const char* f : kScalingFiles)
    EXPECT_NE(html.find(r.files.at(f)), std::string::npos) << f << " not inline";
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/out");
  auto w = WriteReport(r, dir);
  ASSERT_TRUE(w.ok()) << w.status();
  std::ifstream manifest(dir + "/report_manifest.txt");
  std::stringstream ms;
  ms << manifest.rdbuf();
  for (const char* f : kScalingFiles) EXPECT_NE(ms.str().find(f), std::string::npos) << f;
}

// The knees from the files themselves: median MFU per point, per B·T the best, the smallest B·T
// reaching 90% of the best.
std::vector<std::string> ExpectedKnees(const std::string& path, const std::string& machine) {
  std::map<std::string, std::map<std::string, std::vector<double>>> mfu;  // preset -> name -> reps
  std::map<std::string, double> tokens;
  const nlohmann::json run = ReadJson(path);
  for (const auto& e : run["benchmarks"]) {
    const std::string name = e["name"];
    const std::string preset = name.substr(9, name.find('/', 9) - 9);
    mfu[preset][name].push_back(e["mfu"].get<double>());
    tokens[name] = e["tokens_per_step"].get<double>();
  }
  std::vector<std::string> out;
  for (auto& [preset, points] : mfu) {
    std::map<double, double> best_at;
    for (auto& [name, reps] : points) {
      const double median = (reps[0] + reps[1]) / 2;
      best_at[tokens[name]] = std::max(best_at[tokens[name]], median);
    }
    double best = 0;
    for (const auto& [x, y] : best_at) best = std::max(best, y);
    for (const auto& [x, y] : best_at) {
      if (y < 0.9 * best) continue;
      out.push_back(absl::StrFormat("knee: %s fp32 on %s (key ", preset, machine));
      out.back() += absl::StrFormat("B·T = %.0f,MFU %.1f%% of best %.1f%%", x, 100 * y, 100 * best);
      break;
    }
  }
  return out;
}

TEST(ScalingReport, KneesMatchTheFilesAndAreMarked) {
  RunData d;
  Report r = Build(&d);
  std::vector<std::string> want = ExpectedKnees(kA, "AMD EPYC 7B13");
  for (const std::string& k : ExpectedKnees(kB, "Intel Xeon Platinum 8481C")) want.push_back(k);
  ASSERT_EQ(r.knees.size(), 4u);
  ASSERT_EQ(want.size(), 4u);
  for (const std::string& w : want) {
    const std::string head = w.substr(0, w.find("B·T")),
                      bt = w.substr(w.find("B·T"), w.find(',') - w.find("B·T"));
    const std::string mfu = w.substr(w.find(",MFU") + 1);
    bool found = false;
    for (const std::string& k : r.knees) {
      if (k.rfind(head, 0) == 0 && k.find(bt + " (") != std::string::npos && k.find(mfu) != std::string::npos)
        found = true;
    }
    EXPECT_TRUE(found) << "no knee line like: " << head << " " << bt << " " << mfu;
  }
  const std::string& html = r.files.at("index.html");
  for (const std::string& k : r.knees) {
    std::string esc = k;  // the lines have no characters XML escapes
    EXPECT_NE(html.find("<td class=\"knee\">" + esc + "</td>"), std::string::npos) << k;
  }
  const std::string& mfu = r.files.at("scaling_mfu.svg");
  EXPECT_EQ(Count(mfu, "class=\"knee\""), 4);
  EXPECT_GE(Count(mfu, "class=\"knee-label\"[^>]*>knee B·T=256<"), 1);
}

TEST(ScalingReport, FlagsThePlantedTrendBreakAndTheMissingPrediction) {
  RunData d;
  Report r = Build(&d);
  const std::string& mfu = r.files.at("scaling_mfu.svg");
  ASSERT_EQ(Count(mfu, "class=\"trend-break\""), 1);
  EXPECT_NE(
      mfu.find("class=\"trend-break\"><title>BM_Sweep/gpt2/cpu/fp32/B:1/T:128/recompute:none: trend break"),
      std::string::npos);
  bool noted = false, missing = false;
  for (const std::string& n : r.notes) {
    noted |= n.rfind("trend break: BM_Sweep/gpt2/cpu/fp32/B:1/T:128/recompute:none on AMD EPYC 7B13", 0) == 0;
    missing |= n.find("1 point without predicted_ms") != std::string::npos &&
               n.find("BM_Sweep/llama-124m/cpu/fp32/B:8/T:128/recompute:none") != std::string::npos;
  }
  EXPECT_TRUE(noted);
  EXPECT_TRUE(missing);
  const std::string& predicted = r.files.at("scaling_predicted.svg");
  EXPECT_EQ(Count(predicted, "class=\"point\""), 47);  // 48 less the one without a prediction
  ASSERT_EQ(Count(predicted, "class=\"outside-band\""), 1);
  EXPECT_NE(predicted.find(
                "class=\"outside-band\"><title>BM_Sweep/gpt2/cpu/fp32/B:1/T:32/recompute:none: predicted"),
            std::string::npos);
  EXPECT_EQ(Count(r.files.at("scaling_memory.svg"), "class=\"point( predicted)?\""), 96);
}

// Points without batch, seq or tokens_per_step are left off with a problem line each; the rest draw.
TEST(ScalingReport, PointsWithoutTheirShapeAreProblemsNotCrashes) {
  const char kRun[] = R"json({"context": {"mlbench_sweep": "{\"format\": \"mlbench-sweep/1\"}",
                              "mlbench_machine_key": "0000beef"},
   "benchmarks": [
    {"name": "BM_Sweep/gpt2/cpu/fp32/B:1/T:32/recompute:none", "run_type": "iteration", "real_time": 10,
     "time_unit": "ms", "mfu": 0.2},
    {"name": "BM_Sweep/gpt2/cpu/fp32/B:2/T:32/recompute:none", "run_type": "iteration", "real_time": 10,
     "time_unit": "ms", "batch": 2, "seq": 32, "mfu": 0.3},
    {"name": "BM_Sweep/gpt2/cpu/fp32/B:4/T:32/recompute:none", "run_type": "iteration", "real_time": 10,
     "time_unit": "ms", "batch": 4, "seq": 32, "tokens_per_step": 128, "mfu": 0.4}]})json";
  RunLoader loader;
  ASSERT_TRUE(loader.AddText(kRun, "bad.json").ok());
  ReportInputs in;
  in.data = loader.Finish();
  const ScalingMap m = CollectScaling(in.data);
  EXPECT_EQ(m.points.size(), 1u);
  int shape_problems = 0;
  for (const std::string& p : m.problems) {
    if (p.find("left off the scaling map") == std::string::npos) continue;
    ++shape_problems;
    EXPECT_NE(p.find("tokens_per_step"), std::string::npos) << p;
  }
  EXPECT_EQ(shape_problems, 2);
  Report r = BuildReport(in);
  EXPECT_TRUE(r.files.count("scaling_mfu.svg"));
  EXPECT_FALSE(r.files.count("scaling_predicted.svg")) << "no point has a prediction";
  EXPECT_NE(r.files.at("index.html")
                .find("No scaling_predicted.svg: no point has both a step time and a predicted_ms"),
            std::string::npos);
  EXPECT_NE(r.files.at("index.html")
                .find("B:1/T:32/recompute:none (bad.json): no batch, seq, tokens_per_step counter"),
            std::string::npos);
}

}  // namespace
}  // namespace report
