// //tools:sweep: gpt_step over a grid of presets, batches, sequences, dtypes and recompute levels,
// each run in its own process, into one Google Benchmark JSON file with a case per point and
// repetition, measured beside predicted (sweep_output.h). The usage message below says the rest.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/atomic_file.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/user_path.h"
#include "model/gpt_config.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_plan.h"
#include "tools/sweep/sweep_run.h"

ABSL_FLAG(std::string, preset, "gpt2", "presets, comma-separated (gpt_step --help lists them)");
ABSL_FLAG(std::string, batch, "1,2,4,8", "batch sizes B, comma-separated");
ABSL_FLAG(std::string, seq, "32,64,128", "sequence lengths T, comma-separated (each <= its preset's block)");
ABSL_FLAG(std::string, dtype, "fp32", "dtypes, comma-separated: fp32, bf16");
ABSL_FLAG(std::string, recompute, "none",
          "recompute levels, comma-separated: none, gelu (GPT-2), swiglu (Llama), attention, block; a level "
          "that means nothing for a preset is refused at that preset's points");
ABSL_FLAG(int, repetitions, 2, "runs per point (1..20), interleaved: every point once, then every point again");
ABSL_FLAG(int, steps, 3, "timed steps per run (1..1000)");
ABSL_FLAG(int, warmup_steps, 1, "untimed steps per run first (0..1000)");
ABSL_FLAG(int, threads, 0, "CPU threads per run (0: every core)");
ABSL_FLAG(std::string, device, "auto", "auto, cpu or cuda (gpt_step's --device)");
ABSL_FLAG(std::string, ceilings, "",
          "a //micro:ceilings file: every run's MFU against its peak, and the GEMM rates cached in it (the "
          "shapes it lacks are measured once, by the first run that needs them, and added to it); without "
          "it each run measures its peak, and the GEMM rates are cached in a temporary file for this sweep; "
          "a DISTURBED run's measured rates are not kept");
ABSL_FLAG(std::string, out, "sweep.json", "the sweep's JSON, rewritten after every run (relative to the folder bazel run was started from)");
ABSL_FLAG(std::string, log_dir, "", "keep each run's gpt_step output here as <point>.r<k>.log (a folder that exists)");
ABSL_FLAG(std::string, gpt_step, "", "the gpt_step binary (default: the one built with this tool)");
ABSL_FLAG(bool, dry_run, false, "plan and print the points, the refusals and the estimate; run nothing");

namespace {

constexpr char kUsage[] =
    "sweep: gpt_step over a grid, one process per run, into one Google Benchmark JSON with a case per\n"
    "point and repetition: step time, MFU and peak memory measured, beside the step time and memory\n"
    "predicted from the machine's rates (gpt_step's predicted_ms: the GEMMs at their measured rates,\n"
    "attention's products at their mean rate, the memory-bound ops and the Linear weights' trips to\n"
    "memory at the STREAM triad, AdamW at its own measured bytes/s).\n"
    "\n"
    "  bazel run //tools:sweep -- --batch=1,2,4,8 --seq=32,64,128 --out=/tmp/sweep.json\n"
    "  bazel run //tools:sweep -- --preset=gpt2,llama-124m --batch=1,4,16 --seq=64,256,1024 \\\n"
    "      --ceilings=/tmp/ceil.json --out=/tmp/sweep.json\n"
    "  bazel run //tools:report -- --in=/tmp/sweep.json --out=/tmp/map      (the charts, the knee)\n"
    "\n"
    "Before running, each point is resolved and its memory planned as gpt_step does; a point that\n"
    "does not fit in what this machine may allocate is refused in one line naming the bytes (so is\n"
    "a T beyond its preset's block, a recompute level its preset lacks, bf16 on a CPU whose oneDNN\n"
    "cannot run it), and the rest run. While running: a line per run (run i\n"
    "of n, its figures, the time left). --out is rewritten after every run through a temporary file,\n"
    "so Ctrl-C leaves it valid with the runs finished. At the end: the medians per point, the\n"
    "points where the prediction misses the measured step by more than 25% of it, and the knee of\n"
    "each curve (the smallest B*T at 90% of its best MFU).\n"
    "\n"
    "Exit status: 0 every run finished (refused points allowed); 1 command line not understood;\n"
    "2 bad input (a value out of range, an unwritable --out, no point that can run) or a run that\n"
    "failed (the others still run; the JSON has it as an errored entry).\n";

struct Config {
  sweep::SweepAxes axes;
  sweep::CommonFlags common;
  int repetitions = 2;
  std::string out, log_dir, gpt_step;
  bool dry_run = false;
};

absl::Status CheckRange(const char* flag, int v, int lo, int hi) {
  if (v < lo || v > hi) return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", v, ": give ", lo, "..", hi));
  return absl::OkStatus();
}

absl::StatusOr<Config> ReadConfig() {
  Config c;
  auto presets = sweep::ParseNameList("preset", absl::GetFlag(FLAGS_preset), model::GptPresetNames());
  if (!presets.ok()) return presets.status();
  auto batches = sweep::ParseIntList("batch", absl::GetFlag(FLAGS_batch), 65536);
  if (!batches.ok()) return batches.status();
  auto seqs = sweep::ParseIntList("seq", absl::GetFlag(FLAGS_seq), 1 << 20);
  if (!seqs.ok()) return seqs.status();
  auto dtypes = sweep::ParseNameList("dtype", absl::GetFlag(FLAGS_dtype), {"fp32", "bf16"});
  if (!dtypes.ok()) return dtypes.status();
  auto recomputes = sweep::ParseNameList("recompute", absl::GetFlag(FLAGS_recompute),
                                         {"none", "gelu", "swiglu", "attention", "block"});
  if (!recomputes.ok()) return recomputes.status();
  c.axes = {*presets, *batches, *seqs, *dtypes, *recomputes};
  c.repetitions = absl::GetFlag(FLAGS_repetitions);
  c.common.steps = absl::GetFlag(FLAGS_steps);
  c.common.warmup_steps = absl::GetFlag(FLAGS_warmup_steps);
  c.common.threads = absl::GetFlag(FLAGS_threads);
  c.common.device = absl::GetFlag(FLAGS_device);
  c.common.ceilings = harness::UserPath(absl::GetFlag(FLAGS_ceilings));
  for (const absl::Status& s : {CheckRange("repetitions", c.repetitions, 1, 20),
                                CheckRange("steps", c.common.steps, 1, 1000),
                                CheckRange("warmup_steps", c.common.warmup_steps, 0, 1000),
                                CheckRange("threads", c.common.threads, 0, 4096)}) {
    if (!s.ok()) return s;
  }
  c.out = harness::UserPath(absl::GetFlag(FLAGS_out));
  if (c.out.empty()) return absl::InvalidArgumentError("--out= is empty: give the JSON file to write");
  if (auto s = harness::CheckWritable(c.out); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--out=", c.out, ": ", s.message()));
  }
  c.log_dir = harness::UserPath(absl::GetFlag(FLAGS_log_dir));
  struct stat st;
  if (!c.log_dir.empty() && (stat(c.log_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    return absl::InvalidArgumentError(absl::StrCat("--log_dir=", c.log_dir, ": not an existing folder"));
  }
  c.gpt_step = harness::UserPath(absl::GetFlag(FLAGS_gpt_step));
  c.dry_run = absl::GetFlag(FLAGS_dry_run);
  return c;
}

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// --gpt_step, else the binary built with this tool: in its runfiles (bazel run starts in
// <runfiles>/mlbench), or beside it in bazel-bin (bazel-bin/tools/sweep/sweep -> bazel-bin/macro/gpt_step).
absl::StatusOr<std::string> FindGptStep(const std::string& flag, const std::string& argv0) {
  if (!flag.empty()) {
    if (IsExecutable(flag)) return flag;
    return absl::InvalidArgumentError(absl::StrCat("--gpt_step=", flag, ": not an executable file"));
  }
  std::vector<std::string> candidates;
  if (const char* r = std::getenv("RUNFILES_DIR"); r != nullptr && *r) {
    candidates.push_back(absl::StrCat(r, "/mlbench/macro/gpt_step"));
  }
  candidates.push_back(absl::StrCat(argv0, ".runfiles/mlbench/macro/gpt_step"));
  candidates.push_back("macro/gpt_step");
  const size_t slash = argv0.rfind('/');
  if (slash != std::string::npos) candidates.push_back(absl::StrCat(argv0.substr(0, slash), "/../../macro/gpt_step"));
  for (const std::string& c : candidates) {
    if (IsExecutable(c)) return c;
  }
  return absl::NotFoundError(absl::StrCat("gpt_step not found (looked in ", absl::StrJoin(candidates, ", "),
                                          "): give --gpt_step=PATH or run `bazel run //tools:sweep`"));
}

}  // namespace

int main(int argc, char** argv) {
  harness::ParseFlagsOrExit(argc, argv, kUsage);
  absl::StatusOr<Config> config = ReadConfig();
  if (!config.ok()) return harness::Fail("sweep", config.status());
  sweep::SweepSettings settings;
  settings.axes = config->axes;
  settings.common = config->common;
  settings.repetitions = config->repetitions;
  settings.out = config->out;
  settings.log_dir = config->log_dir;
  settings.dry_run = config->dry_run;
  for (int i = 0; i < argc; ++i) absl::StrAppend(&settings.command, i ? " " : "", argv[i]);
  return sweep::RunSweep(settings, [&]() { return FindGptStep(config->gpt_step, argv[0]); });
}
