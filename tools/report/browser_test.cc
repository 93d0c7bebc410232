// The report in a real browser: index.html rendered by headless Chromium (Debian's chromium,
// installed by tools/setup.sh), screenshot decoded, and every roofline point looked for in the
// pixels where its data coordinates say it must be drawn.
//
// The points are four cases of four op families (four colours) at known intensities and
// FLOP/s. The roofline's plot area is found in the screenshot by its background colour; the
// plot rectangle and axis domains the SVG declares give the log scales, computed here from the
// data independently of the chart code. Each point's colour must fill a 3x3 patch at the
// expected pixel, and the blob of that colour there must be centred within 1.5 px of it.
// A second run checks that roofline.svg on its own is well-formed XML (Chromium shows a
// parsererror otherwise).
//
// Without chromium the test is skipped with a message saying so (GTEST_SKIP), never passed.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tools/report/chart_frame.h"
#include "tools/report/input_loader.h"
#include "tools/report/png_decode.h"
#include "tools/history/history_db.h"
#include "tools/report/report.h"
#include "tools/report/trend_chart.h"

namespace report {
namespace {

std::string FindChromium() {
  if (const char* env = std::getenv("CHROMIUM_BIN"); env != nullptr && access(env, X_OK) == 0) return env;
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) dirs = absl::StrSplit(path, ':', absl::SkipEmpty());
  for (const char* d : {"/usr/bin", "/usr/local/bin", "/bin"}) dirs.push_back(d);
  for (const std::string& d : dirs) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::string p = absl::StrCat(d, "/", name);
      if (access(p.c_str(), X_OK) == 0) return p;
    }
  }
  return "";
}

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs chromium headless with `args`; its output goes to `log`. Returns the exit status.
int Chromium(const std::string& exe, const std::string& args, const std::string& log) {
  const std::string tmp = TmpDir();
  const std::string cmd = absl::StrCat(
      "HOME='", tmp, "/home' timeout 120 '", exe, "' --headless --no-sandbox --disable-gpu --no-first-run ",
      "--user-data-dir='", tmp, "/chromium-profile' --hide-scrollbars --force-device-scale-factor=1 ", args,
      " >'", log, "' 2>&1");
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

uint32_t Hex(const std::string& colour) {
  return static_cast<uint32_t>(std::stoul(colour.substr(1), nullptr, 16));
}

// What a chart declares on its root (chart_frame.h): the plot rectangle and the axis domains.
struct Declared {
  double px = 0, py = 0, pw = 0, ph = 0, x0 = 0, x1 = 0, y0 = 0, y1 = 0;
};

bool ParseDeclared(const std::string& svg, Declared* d) {
  std::smatch m;
  if (!std::regex_search(svg, m, std::regex("data-plot=\"([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9.]+)\""))) return false;
  d->px = std::stod(m[1]), d->py = std::stod(m[2]), d->pw = std::stod(m[3]), d->ph = std::stod(m[4]);
  if (!std::regex_search(svg, m, std::regex("data-x-domain=\"([0-9.e+-]+) ([0-9.e+-]+)\""))) return false;
  d->x0 = std::stod(m[1]), d->x1 = std::stod(m[2]);
  if (!std::regex_search(svg, m, std::regex("data-y-domain=\"([0-9.e+-]+) ([0-9.e+-]+)\""))) return false;
  d->y0 = std::stod(m[1]), d->y1 = std::stod(m[2]);
  return true;
}

// A run with four points of four families, under a roof of 240 GFLOP/s and 32 GB/s.
constexpr char kRun[] = R"json({
  "context": {"cpu_model": "Test CPU", "num_cpus": 2},
  "benchmarks": [
    {"name": "BM_Matmul/cpu/fp32/M:1024/K:1024/N:1024/manual_time", "real_time": 10, "time_unit": "ms",
     "FLOP/s": 2.0e11, "bytes/s": 2.0e9, "intensity": 100, "peak_FLOP/s": 2.4e11, "peak_bytes/s": 3.2e10,
     "verified": 1, "label": "peak: measured at start-up: test"},
    {"name": "BM_Matmul/cpu/onednn/fp32/M:64/K:64/N:64/manual_time", "real_time": 10, "time_unit": "us",
     "FLOP/s": 3.0e10, "bytes/s": 3.0e9, "intensity": 10, "peak_FLOP/s": 2.4e11, "peak_bytes/s": 3.2e10,
     "verified": 1, "label": "peak: measured at start-up: test"},
    {"name": "BM_Elementwise/cpu/gelu/N:16777216", "real_time": 5, "time_unit": "ms",
     "FLOP/s": 1.0e10, "bytes/s": 2.0e10, "intensity": 0.5, "peak_FLOP/s": 2.4e11, "peak_bytes/s": 3.2e10,
     "verified": 1, "label": "peak: measured at start-up: test"},
    {"name": "BM_Probe/cpu/x/N:1", "real_time": 5, "time_unit": "ms",
     "FLOP/s": 2.0e8, "bytes/s": 2.0e9, "intensity": 0.1, "peak_FLOP/s": 2.4e11, "peak_bytes/s": 3.2e10,
     "verified": 1, "label": "peak: measured at start-up: test"}
  ]
})json";

struct Expected {
  std::string name;
  double intensity, flops;
};

TEST(Browser, RooflinePointsAreDrawnWhereTheirCoordinatesSay) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "SKIPPED, NOT PASSED: chromium is not installed, so the report was not checked in a "
                    "browser. Install it with `bash tools/setup.sh` (Debian package chromium).";
  }
  const std::string out = TmpDir() + "/report";
  RunLoader loader;
  ASSERT_TRUE(loader.AddText(kRun, "run.json").ok());
  ReportInputs in;
  in.data = loader.Finish();
  in.command = "browser_test";
  Report r = BuildReport(in);
  ASSERT_TRUE(WriteReport(r, out).ok());

  const std::string png = TmpDir() + "/shot.png";
  const std::string log = TmpDir() + "/chromium.log";
  const int rc = Chromium(
      chromium,
      absl::StrCat("--window-size=1280,1500 --screenshot='", png, "' 'file://", out, "/index.html'"), log);
  ASSERT_EQ(rc, 0) << "chromium failed:\n" << ReadAll(log);
  auto img = ReadPng(png);
  ASSERT_TRUE(img.ok()) << img.status() << "\nchromium:\n" << ReadAll(log);
  ASSERT_EQ(img->width, 1280);

  // The plot area: the first band of rows holding the plot background (gridlines may
  // interrupt it for a few rows), and the columns it spans there.
  const uint32_t bg = Hex(kPlotBackground);
  int top = -1, bottom = -1, left = img->width, right = -1;
  int gap = 0;
  for (int y = 0; y < img->height; ++y) {
    bool any = false;
    for (int x = 0; x < img->width; ++x) {
      if (img->At(x, y) != bg) continue;
      any = true;
      left = std::min(left, x);
      right = std::max(right, x);
    }
    if (any) {
      if (top < 0) top = y;
      bottom = y;
      gap = 0;
    } else if (top >= 0 && ++gap > 4) {
      break;
    }
  }
  ASSERT_GE(top, 0) << "no plot background " << kPlotBackground << " in the screenshot";

  // What the chart declares: plot rectangle and domains (SVG units = CSS px at scale 1).
  const std::string svg = r.files.at("roofline.svg");
  Declared decl;
  ASSERT_TRUE(ParseDeclared(svg, &decl)) << "no data-plot / data-x-domain / data-y-domain on the chart's root";
  const double px = decl.px, py = decl.py, pw = decl.pw, ph = decl.ph;
  const double x0 = decl.x0, x1 = decl.x1, y0 = decl.y0, y1 = decl.y1;
  // The background found must be the plot (its frame covers the outermost pixel row/column).
  ASSERT_NEAR(right - left + 1, pw, 3) << "plot columns " << left << ".." << right;
  ASSERT_NEAR(bottom - top + 1, ph, 3) << "plot rows " << top << ".." << bottom;
  const double ox = (left + right + 1) / 2.0 - (px + pw / 2);  // page offset of the SVG
  const double oy = (top + bottom + 1) / 2.0 - (py + ph / 2);

  const std::vector<Expected> points = {{"BM_Matmul/cpu/fp32/M:1024/K:1024/N:1024", 100, 2.0e11},
                                        {"BM_Matmul/cpu/onednn/fp32/M:64/K:64/N:64", 10, 3.0e10},
                                        {"BM_Elementwise/cpu/gelu/N:16777216", 0.5, 1.0e10},
                                        {"BM_Probe/cpu/x/N:1", 0.1, 2.0e8}};
  std::map<uint32_t, int> colours_used;
  for (const Expected& e : points) {
    SCOPED_TRACE(e.name);
    // The point's colour, from its circle in the SVG.
    std::smatch cm;
    ASSERT_TRUE(std::regex_search(
        svg, cm, std::regex("<circle [^>]*fill=\"(#[0-9a-f]{6})\"[^>]*data-case=\"" + e.name + "\"")));
    const uint32_t colour = Hex(cm[1]);
    ++colours_used[colour];
    // Where the log scales put it, in screenshot pixels (pixel (i, j) covers [i, i+1) x [j, j+1)).
    const double ex = ox + px + pw * std::log10(e.intensity / x0) / std::log10(x1 / x0);
    const double ey = oy + py + ph - ph * std::log10(e.flops / y0) / std::log10(y1 / y0);
    const int cx = static_cast<int>(std::floor(ex)), cy = static_cast<int>(std::floor(ey));
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        EXPECT_EQ(img->At(cx + dx, cy + dy), colour)
            << "pixel (" << cx + dx << ", " << cy + dy << ") is not the point's colour " << cm[1];
      }
    }
    // The blob of that colour around the expected pixel is centred on it.
    double sx = 0, sy = 0;
    int n = 0;
    for (int y = cy - 12; y <= cy + 12; ++y) {
      for (int x = cx - 12; x <= cx + 12; ++x) {
        if (x < 0 || y < 0 || x >= img->width || y >= img->height || img->At(x, y) != colour) continue;
        sx += x + 0.5;
        sy += y + 0.5;
        ++n;
      }
    }
    ASSERT_GT(n, 20) << "too few pixels of the point's colour near (" << ex << ", " << ey << ")";
    EXPECT_NEAR(sx / n, ex, 1.5);
    EXPECT_NEAR(sy / n, ey, 1.5);
    // Control: a y axis drawn upside down would put the point here; the colour must not be there.
    const int fy = static_cast<int>(std::floor(2 * (oy + py) + ph - ey));
    if (std::abs(fy - cy) > 20) {
      EXPECT_NE(img->At(cx, fy), colour) << "found at the flipped position too";
    }
  }
  EXPECT_EQ(colours_used.size(), points.size()) << "each family must have its own colour for this check";

  // roofline.svg alone is well-formed XML: no parser error in Chromium's DOM.
  const std::string dom = TmpDir() + "/dom.html";
  ASSERT_EQ(Chromium(chromium, absl::StrCat("--dump-dom 'file://", out, "/roofline.svg'"), dom), 0)
      << ReadAll(dom);
  const std::string text = ReadAll(dom);
  EXPECT_NE(text.find("data-plot="), std::string::npos) << text.substr(0, 2000);
  EXPECT_EQ(text.find("parsererror"), std::string::npos) << text.substr(0, 2000);
}


// A history of 20 runs whose time steps from 100 to 130 ms at run 11: trend_1.svg rendered alone
// by Chromium has each run's median dot where the declared plot and domains put it, and the
// change point's red dashed line between runs 10 and 11 (and no red line elsewhere). (12 runs
// would not do: 6 against 6 cannot reach p < 0.01 with 499 permutations.)
TEST(Browser, TrendChartMarksTheChangePoint) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "SKIPPED, NOT PASSED: chromium is not installed, so the trend chart was not checked in a "
                    "browser. Install it with `bash tools/setup.sh` (Debian package chromium).";
  }
  const std::string db_path = TmpDir() + "/trend.db";
  std::remove(db_path.c_str());
  std::vector<double> medians;
  {
    auto db = history::HistoryDb::Open(db_path);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 20; ++i) {
      const double ms = (i < 10 ? 100.0 : 130.0) + (i % 3) * 0.7;
      medians.push_back(ms);
      history::RunRecord r;
      r.machine_hash = "0badcafe";
      r.machine_description = "test machine";
      r.machine_fields_json = "{}";
      r.commit = absl::StrCat(std::string(39, 'a'), i % 10);
      r.date = absl::StrCat("2026-11-", 10 + i, "T00:00:00Z");  // the 10th to the 29th
      r.source = "test";
      r.context_json = "{}";
      for (int rep = 0; rep < 3; ++rep) r.rows.push_back({"BM_Step", "real_time", rep, (ms + (rep - 1)) * 1e-3});
      ASSERT_TRUE((*db)->Record(r).ok());
    }
  }
  auto loaded = LoadTrends(db_path, "real_time");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::vector<TrendSeries>* trends = &loaded->series;
  ASSERT_EQ(trends->size(), 1u);
  ASSERT_EQ((*trends)[0].changes.size(), 1u);
  EXPECT_EQ((*trends)[0].changes[0].index, 10);
  EXPECT_TRUE((*trends)[0].changes[0].worse);

  ReportInputs in;
  in.trends = *trends;
  in.history_path = db_path;
  in.command = "browser_test";
  Report r = BuildReport(in);
  const std::string out = TmpDir() + "/trend_report";
  ASSERT_TRUE(WriteReport(r, out).ok());
  ASSERT_TRUE(r.files.count("trend_1.svg"));
  EXPECT_NE(r.files.at("index.html").find("History: 1 series"), std::string::npos);

  const std::string png = TmpDir() + "/trend.png";
  const std::string log = TmpDir() + "/chromium_trend.log";
  ASSERT_EQ(Chromium(chromium,
                     absl::StrCat("--window-size=980,400 --screenshot='", png, "' 'file://", out, "/trend_1.svg'"),
                     log),
            0)
      << ReadAll(log);
  auto img = ReadPng(png);
  ASSERT_TRUE(img.ok()) << img.status() << "\n" << ReadAll(log);

  const std::string svg = r.files.at("trend_1.svg");
  Declared decl;
  ASSERT_TRUE(ParseDeclared(svg, &decl)) << "no data-plot / data-x-domain / data-y-domain on the chart's root";
  const double px = decl.px, py = decl.py, pw = decl.pw, ph = decl.ph;
  const double x0 = decl.x0, x1 = decl.x1, y0 = decl.y0, y1 = decl.y1;
  auto X = [&](double v) { return px + pw * (v - x0) / (x1 - x0); };
  auto Y = [&](double v) { return py + ph - ph * (v - y0) / (y1 - y0); };

  const uint32_t median = Hex(kTrendMedian), worse = Hex(kTrendWorse);
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE(absl::StrCat("run ", i + 1));
    const int cx = static_cast<int>(std::floor(X(i + 1))), cy = static_cast<int>(std::floor(Y(medians[i])));
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        EXPECT_EQ(img->At(cx + dx, cy + dy), median) << "pixel (" << cx + dx << ", " << cy + dy << ")";
      }
    }
  }
  // Red pixels in a 3-pixel column around x, over the plot's height below the change's label
  // (its text runs right from the line along the plot's top 20 px).
  auto red_in_column = [&](double x) {
    int n = 0;
    for (int y = static_cast<int>(py) + 24; y < static_cast<int>(py + ph); ++y) {
      for (int dx = -1; dx <= 1; ++dx) n += img->At(static_cast<int>(std::floor(x)) + dx, y) == worse;
    }
    return n;
  };
  EXPECT_GT(red_in_column(X(10.5)), ph * 0.4) << "no dashed red line between runs 10 and 11";
  EXPECT_EQ(red_in_column(X(5.5)), 0) << "a red line between runs 5 and 6";
  EXPECT_EQ(red_in_column(X(15.5)), 0) << "a red line between runs 15 and 16";
}

}  // namespace
}  // namespace report

namespace report {
namespace {

// ---- the scaling map: scaling_mfu.svg and scaling_predicted.svg in Chromium ----

struct SweepPoint {
  std::string machine, preset;
  int batch;
  double mfu, ms, predicted_ms;
  std::string Name() const {
    return absl::StrCat("BM_Sweep/", preset, "/cpu/fp32/B:", batch, "/T:64/recompute:none");
  }
};

// Two machines: A with gpt2 and llama-124m, B with gpt2; T = 64, B in {1, 2, 4, 8}. A's gpt2 at
// B:2 is 2.75 points above the line through its neighbours (spread 1 point): a trend break; every
// other inner point is within half a point of its line. A's gpt2 at B:4 is predicted 30% slow:
// outside the band.
std::vector<SweepPoint> SweepPoints() {
  return {{"aaaa0001", "gpt2", 1, 0.20, 10, 11},        {"aaaa0001", "gpt2", 2, 0.30, 20, 18},
          {"aaaa0001", "gpt2", 4, 0.345, 40, 52},       {"aaaa0001", "gpt2", 8, 0.38, 80, 78},
          {"aaaa0001", "llama-124m", 1, 0.12, 15, 14},  {"aaaa0001", "llama-124m", 2, 0.17, 30, 33},
          {"aaaa0001", "llama-124m", 4, 0.215, 60, 57}, {"aaaa0001", "llama-124m", 8, 0.25, 120, 110},
          {"bbbb0002", "gpt2", 1, 0.06, 200, 210},      {"bbbb0002", "gpt2", 2, 0.10, 400, 380},
          {"bbbb0002", "gpt2", 4, 0.135, 800, 820},     {"bbbb0002", "gpt2", 8, 0.16, 1600, 1500}};
}

std::string SweepRun(const std::string& machine, const std::string& cpu) {
  const std::string rc =
      absl::StrCat("{\\\"cpu\\\": {\\\"model_name\\\": \\\"", cpu,
                   "\\\", \\\"isa_level\\\": \\\"AVX2\\\"}, \\\"gpu\\\": {\\\"name\\\": \\\"none\\\"}}");
  std::string run =
      absl::StrCat("{\"context\": {\"mlbench_sweep\": \"{\\\"format\\\": \\\"mlbench-sweep/1\\\"}\", ",
                   "\"mlbench_machine_key\": \"", machine, "\", \"mlbench_run_context\": \"", rc,
                   "\"}, \"benchmarks\": [");
  bool first = true;
  for (const SweepPoint& p : SweepPoints()) {
    if (p.machine != machine) continue;
    absl::StrAppend(
        &run, first ? "" : ",", "{\"name\": \"", p.Name(), "\", \"run_name\": \"", p.Name(),
        "\", \"run_type\": \"iteration\", \"repetitions\": 1, \"repetition_index\": 0, \"real_time\": ", p.ms,
        ", \"time_unit\": \"ms\", \"batch\": ", p.batch, ", \"seq\": 64, \"tokens_per_step\": ", p.batch * 64,
        ", \"mfu\": ", p.mfu, ", \"mfu_min\": ", p.mfu - 0.005, ", \"mfu_max\": ", p.mfu + 0.005,
        ", \"ms_per_step\": ", p.ms, ", \"predicted_ms\": ", p.predicted_ms,
        ", \"peak_flops\": ", machine == "aaaa0001" ? "1e11" : "2e11", "}");
    first = false;
  }
  return run + "]}";
}

// Where a value lands on a declared axis: log10 when `log`, else linear.
double Along(double v, double lo, double hi, bool log) {
  return log ? std::log10(v / lo) / std::log10(hi / lo) : (v - lo) / (hi - lo);
}

// Pixels of exactly `colour` connected to (x, y), within 12 px of it: their count and centroid.
int Blob(const Image& img, int x0, int y0, uint32_t colour, double* cx, double* cy) {
  std::vector<std::pair<int, int>> stack = {{x0, y0}};
  std::set<std::pair<int, int>> seen = {{x0, y0}};
  double sx = 0, sy = 0;
  int n = 0;
  while (!stack.empty()) {
    auto [x, y] = stack.back();
    stack.pop_back();
    if (x < 0 || y < 0 || x >= img.width || y >= img.height || img.At(x, y) != colour) continue;
    sx += x + 0.5, sy += y + 0.5, ++n;
    for (auto [dx, dy] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
      if (std::abs(x + dx - x0) <= 12 && std::abs(y + dy - y0) <= 12 && seen.insert({x + dx, y + dy}).second)
        stack.push_back({x + dx, y + dy});
    }
  }
  if (n > 0) *cx = sx / n, *cy = sy / n;
  return n;
}

// Renders `file` of `out` alone and finds each point's marker where (x(p), y(p)) on the declared
// axes puts it. Returns the expected pixel of each point (for further checks), in order.
std::vector<std::pair<double, double>> CheckMarkers(const std::string& chromium, const std::string& out,
                                                    const std::string& file, const std::string& svg,
                                                    bool log_y,
                                                    const std::function<double(const SweepPoint&)>& x,
                                                    const std::function<double(const SweepPoint&)>& y,
                                                    Image* shot) {
  std::smatch size;
  EXPECT_TRUE(std::regex_search(svg, size, std::regex("width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  const std::string png = absl::StrCat(TmpDir(), "/", file, ".png"), log = TmpDir() + "/chromium_scaling.log";
  EXPECT_EQ(Chromium(chromium,
                     absl::StrCat("--window-size=", size[1].str(), ",", size[2].str(), " --screenshot='", png,
                                  "' 'file://", out, "/", file, "'"),
                     log),
            0)
      << ReadAll(log);
  auto img = ReadPng(png);
  EXPECT_TRUE(img.ok()) << img.status() << ReadAll(log);
  if (!img.ok()) return {};
  *shot = *img;
  Declared d;
  EXPECT_TRUE(ParseDeclared(svg, &d)) << file;
  // The plot background's extent must be the declared rectangle.
  const uint32_t bg = Hex(kPlotBackground);
  int left = img->width, right = -1, top = img->height, bottom = -1;
  for (int py = 0; py < img->height; ++py) {
    for (int px = 0; px < img->width; ++px) {
      if (img->At(px, py) != bg) continue;
      left = std::min(left, px), right = std::max(right, px), top = std::min(top, py),
      bottom = std::max(bottom, py);
    }
  }
  EXPECT_NEAR(left, d.px, 2) << file;
  EXPECT_NEAR(right + 1, d.px + d.pw, 2) << file;
  EXPECT_NEAR(top, d.py, 2) << file;
  EXPECT_NEAR(bottom + 1, d.py + d.ph, 2) << file;
  std::vector<std::pair<double, double>> where;
  for (const SweepPoint& p : SweepPoints()) {
    const double ex = d.px + d.pw * Along(x(p), d.x0, d.x1, true);
    const double ey = d.py + d.ph - d.ph * Along(y(p), d.y0, d.y1, log_y);
    for (const auto& [ox, oy] : where)
      EXPECT_GT(std::hypot(ox - ex, oy - ey), 14) << "the test's points overlap";
    where.push_back({ex, ey});
  }
  const std::vector<SweepPoint> points = SweepPoints();
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    SCOPED_TRACE(absl::StrCat(file, ": ", p.Name(), " on ", p.machine));
    std::smatch cm;
    EXPECT_TRUE(std::regex_search(svg, cm,
                                  std::regex("fill=\"(#[0-9a-f]{6})\"[^>]*class=\"point\" data-case=\"" +
                                             p.Name() + "\" data-machine=\"" + p.machine + "\"")));
    if (cm.empty()) continue;
    const uint32_t colour = Hex(cm[1]);
    const int cx = static_cast<int>(std::floor(where[i].first)),
              cy = static_cast<int>(std::floor(where[i].second));
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx)
        EXPECT_EQ(img->At(cx + dx, cy + dy), colour) << "pixel " << cx + dx << "," << cy + dy;
    }
    double bx = 0, by = 0;
    EXPECT_GT(Blob(*img, cx, cy, colour, &bx, &by), 20);
    EXPECT_NEAR(bx, where[i].first, 1.5);
    EXPECT_NEAR(by, where[i].second, 1.5);
  }
  return where;
}

bool Reddish(uint32_t rgb) { return (rgb >> 16) > 150 && ((rgb >> 8) & 0xff) < 90 && (rgb & 0xff) < 110; }

// A red pixel on the ring of radius 11 around (x, y), looked for above, below, left and right.
int RedOnRing(const Image& img, double x, double y) {
  int n = 0;
  for (auto [dx, dy] : {std::pair{0, -1}, {0, 1}, {-1, 0}, {1, 0}}) {
    bool found = false;
    for (double r = 9.5; r <= 12.5 && !found; r += 0.5)
      found =
          Reddish(img.At(static_cast<int>(std::floor(x + dx * r)), static_cast<int>(std::floor(y + dy * r))));
    n += found;
  }
  return n;
}

TEST(Browser, ScalingMapMarkersAreWhereTheirValuesSay) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "SKIPPED, NOT PASSED: chromium is not installed, so the scaling map was not checked in a "
                    "browser. Install it with `bash tools/setup.sh` (Debian package chromium).";
  }
  RunLoader loader;
  ASSERT_TRUE(loader.AddText(SweepRun("aaaa0001", "AMD EPYC 7B13"), "a.json").ok());
  ASSERT_TRUE(loader.AddText(SweepRun("bbbb0002", "Intel Xeon 8481C"), "b.json").ok());
  ReportInputs in;
  in.data = loader.Finish();
  Report r = BuildReport(in);
  const std::string out = TmpDir() + "/scaling_report";
  ASSERT_TRUE(WriteReport(r, out).ok());
  ASSERT_TRUE(r.files.count("scaling_mfu.svg") && r.files.count("scaling_predicted.svg"));

  Image mfu_shot, predicted_shot;
  const auto mfu_at = CheckMarkers(
      chromium, out, "scaling_mfu.svg", r.files.at("scaling_mfu.svg"), /*log_y=*/false,
      [](const SweepPoint& p) { return p.batch * 64.0; }, [](const SweepPoint& p) { return 100 * p.mfu; },
      &mfu_shot);
  const auto predicted_at = CheckMarkers(
      chromium, out, "scaling_predicted.svg", r.files.at("scaling_predicted.svg"), /*log_y=*/true,
      [](const SweepPoint& p) { return p.ms; }, [](const SweepPoint& p) { return p.predicted_ms; },
      &predicted_shot);
  ASSERT_EQ(mfu_at.size(), SweepPoints().size());
  ASSERT_EQ(predicted_at.size(), SweepPoints().size());
  // Red rings: A's gpt2 B:2 on the MFU chart (trend break), A's gpt2 B:4 on the predicted one
  // (30% off); no red ring around a point neither applies to.
  const std::vector<SweepPoint> points = SweepPoints();
  for (size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE(absl::StrCat(points[i].Name(), " on ", points[i].machine));
    const bool a_gpt2 = points[i].machine == "aaaa0001" && points[i].preset == "gpt2";
    EXPECT_EQ(RedOnRing(mfu_shot, mfu_at[i].first, mfu_at[i].second) >= 3, a_gpt2 && points[i].batch == 2);
    EXPECT_EQ(RedOnRing(predicted_shot, predicted_at[i].first, predicted_at[i].second) >= 3,
              a_gpt2 && points[i].batch == 4);
  }
}

}  // namespace
}  // namespace report

namespace report {
namespace {

// ---- the memory roofs on roofline.svg (testdata/memory_roofs_*.json) ----

// True when `rgb` is within `tolerance` (sum over the channels) of `want`.
bool Near(uint32_t rgb, uint32_t want, int tolerance) {
  int d = 0;
  for (int shift : {16, 8, 0})
    d += std::abs(static_cast<int>((rgb >> shift) & 0xff) - static_cast<int>((want >> shift) & 0xff));
  return d <= tolerance;
}

// A pixel near `colour` within 2 px of (x, y).
bool ColourNear(const Image& img, double x, double y, uint32_t colour) {
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -2; dx <= 2; ++dx) {
      const int px = static_cast<int>(std::floor(x)) + dx, py = static_cast<int>(std::floor(y)) + dy;
      if (px >= 0 && py >= 0 && px < img.width && py < img.height && Near(img.At(px, py), colour, 60))
        return true;
    }
  }
  return false;
}

// The fixture run with its ceilings file, roofline.svg rendered alone: the in_place DRAM roof
// (38 GB/s) passes through the pixel of I x 38 GB/s at the intensities along it (and not
// through I x 19 or I x 76 GB/s); the AdamW above the copy roof but under its in_place roof
// and the AdamW at 150% of it are drawn at their pixels, only the latter ringed in red.
TEST(Browser, MemoryRoofsAndPointsWhereTheyShouldBe) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "SKIPPED, NOT PASSED: chromium is not installed, so the memory roofs were not checked in "
                    "a browser. Install it with `bash tools/setup.sh` (Debian package chromium).";
  }
  auto data = LoadRuns({"tools/report/testdata/memory_roofs_run.json"});
  ASSERT_TRUE(data.ok()) << data.status();
  auto ceilings = accounting::ReadCeilings("tools/report/testdata/memory_roofs_ceilings.json");
  ASSERT_TRUE(ceilings.ok()) << ceilings.status();
  ReportInputs in;
  in.data = *data;
  in.ceilings = *ceilings;
  in.ceilings_path = "memory_roofs_ceilings.json";
  Report r = BuildReport(in);
  const std::string out = TmpDir() + "/memory_report";
  ASSERT_TRUE(WriteReport(r, out).ok());
  const std::string svg = r.files.at("roofline.svg");
  std::smatch size;
  ASSERT_TRUE(std::regex_search(svg, size, std::regex("width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  const std::string png = TmpDir() + "/memory_roofline.png", log = TmpDir() + "/chromium_memory.log";
  ASSERT_EQ(Chromium(chromium,
                     absl::StrCat("--window-size=", size[1].str(), ",", size[2].str(), " --screenshot='", png,
                                  "' 'file://", out, "/roofline.svg'"),
                     log),
            0)
      << ReadAll(log);
  auto img = ReadPng(png);
  ASSERT_TRUE(img.ok()) << img.status() << ReadAll(log);
  Declared d;
  ASSERT_TRUE(ParseDeclared(svg, &d));
  auto X = [&](double v) { return d.px + d.pw * Along(v, d.x0, d.x1, true); };
  auto Y = [&](double v) { return d.py + d.ph - d.ph * Along(v, d.y0, d.y1, true); };

  std::smatch line;
  ASSERT_TRUE(std::regex_search(
      svg, line,
      std::regex("stroke=\"(#[0-9a-f]{6})\"[^>]*class=\"memory-roof\" data-kind=\"in_place\" "
                 "data-level=\"DRAM\" data-bytes-per-s=\"38000000000\"")));
  const uint32_t orange = Hex(line[1]);
  int found = 0;
  for (double i : {0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0}) {
    SCOPED_TRACE(absl::StrCat("intensity ", i));
    const bool here = ColourNear(*img, X(i), Y(i * 3.8e10), orange);
    found += here;
    EXPECT_FALSE(ColourNear(*img, X(i), Y(i * 1.9e10), orange))
        << "the in_place colour at half its bandwidth";
    EXPECT_FALSE(ColourNear(*img, X(i), Y(i * 7.6e10), orange))
        << "the in_place colour at twice its bandwidth";
  }
  // A label or a point may cover the line at an intensity or two; never most of them.
  EXPECT_GE(found, 5) << "the in_place slope is not where I x 38 GB/s puts it";

  for (const auto& [name, flagged] : std::vector<std::pair<std::string, bool>>{
           {"BM_Elementwise/cpu/adamw/N:16777216", false}, {"BM_Elementwise/cpu/adamw/N:4194304", true}}) {
    SCOPED_TRACE(name);
    std::smatch pm;
    ASSERT_TRUE(std::regex_search(svg, pm,
                                  std::regex("fill=\"(#[0-9a-f]{6})\"[^>]*class=\"point\" data-case=\"" +
                                             name + "\" data-x=\"([0-9.e+-]+)\" data-y=\"([0-9.e+-]+)\"")));
    const double ex = X(std::stod(pm[2])), ey = Y(std::stod(pm[3]));
    double bx = 0, by = 0;
    EXPECT_GT(
        Blob(*img, static_cast<int>(std::floor(ex)), static_cast<int>(std::floor(ey)), Hex(pm[1]), &bx, &by),
        20);
    EXPECT_NEAR(bx, ex, 1.5);
    EXPECT_NEAR(by, ey, 1.5);
    EXPECT_EQ(RedOnRing(*img, ex, ey) >= 3, flagged);
  }
}

}  // namespace
}  // namespace report
