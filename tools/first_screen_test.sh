#!/usr/bin/env bash
# The first screen of a benchmark binary shows no "***WARNING*** Library was built as DEBUG": Google
# Benchmark is compiled from source in this build's own mode (third_party/benchmark.BUILD), so
# under the project's -c opt the library is a release one, and its JSON context says
# "library_build_type": "release". Debian's libbenchmark-dev (built without NDEBUG) printed the
# warning on every run and said "debug"; against it this test fails.
# Under -c dbg or fastbuild (--config=asan/ubsan/sanitizers build -c dbg: no NDEBUG) the library
# is a debug one like the rest of the build, and the test expects exactly that instead: the
# warning and "debug". Either way the library's mode must be the build's.
# Runs gpt_step (a tiny CPU run) and matmul (one small CPU case), each once: console output on
# stdout, the JSON with --benchmark_out.
# Usage: first_screen_test.sh GPT_STEP MATMUL   (env MLB_COMPILATION_MODE: opt, dbg or fastbuild)
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
STEP="$1" MATMUL="$2"
MODE="${MLB_COMPILATION_MODE:?set by tools/BUILD.bazel to \$(COMPILATION_MODE)}"
if [[ "$MODE" == opt ]]; then WANT=release; else WANT=debug; fi
WARNING="Library was built as DEBUG"
T="${TEST_TMPDIR:-$(mktemp -d)}"

# check NAME: NAME.log (stdout and stderr) and NAME.json as this build mode wants them.
check() {
  local name="$1" log="$T/$1.log" json="$T/$1.json"
  grep -qF "Running " "$log" || { tail -20 "$log"; fail "$name: no first screen (no 'Running ...' line)"; }
  if [[ "$WANT" == release ]] && grep -F "$WARNING" "$log"; then
    fail "$name (-c $MODE) prints '$WARNING': Google Benchmark is not built in this build's mode"
  fi
  if [[ "$WANT" == debug ]] && ! grep -qF "$WARNING" "$log"; then
    fail "$name (-c $MODE, no NDEBUG) does not print '$WARNING': the library is not built in this build's mode"
  fi
  [[ -s "$json" ]] || { tail -20 "$log"; fail "$name wrote no JSON ($json)"; }
  grep -qE "\"library_build_type\": *\"$WANT\"" "$json" ||
    fail "$name's JSON context: $(grep -E '"library_build_type"' "$json" || echo 'no library_build_type'), want \"$WANT\" under -c $MODE"
  echo "ok: $name (-c $MODE): library_build_type $WANT"
}

# run NAME CMD...: CMD's stdout and stderr to NAME.log; fails the test on a non-zero exit.
run() {
  local name="$1"; shift
  "$@" >"$T/$name.log" 2>&1
  local rc=$?
  [[ $rc -eq 0 ]] || { tail -20 "$T/$name.log"; fail "$name exited $rc"; }
}

run gpt_step "$STEP" --preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=1 --device=cpu \
  --threads=1 --peak_flops=1e11 --benchmark_out="$T/gpt_step.json" --benchmark_out_format=json
check gpt_step

run matmul "$MATMUL" --benchmark_filter='cpu/onednn/fp32/M:64/K:64/N:64/' --benchmark_min_time=0.01 \
  --benchmark_out="$T/matmul.json" --benchmark_out_format=json
check matmul
echo "PASS"
