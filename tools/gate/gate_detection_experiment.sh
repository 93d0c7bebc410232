#!/usr/bin/env bash
# Detection experiment for tools/gate: a case built to run 25% slower must be
# reported REGRESSED in at least 9 of 10 runs. The case is BM_Fake/cpu/axpy of the test
# fixture (tools/bench/testdata/fake_bench.cc): real CPU work whose size the test-only variable
# MLBENCH_FAKE_SLOWDOWN scales (1.25 = 25% more work per iteration). The baseline is recorded
# without it, then RUNS runs (default 10) set it; each is gated with the default options.
#
#   tools/gate/gate_detection_experiment.sh [RUNS] [OUTDIR] [SLOWDOWN]
#
#   GATE_ARGS="--threshold=0.10" tools/gate/gate_detection_experiment.sh   # gate options
#
#   AB=1 tools/gate/gate_detection_experiment.sh   # A/B mode: each run is an A/B run of the same
#       fixture binary (bench --against_runfiles) with the slowdown on the current side only
#       (MLBENCH_FAKE_SLOWDOWN_SIDE=current), gated paired (gate --against); no baseline
#
# Exit status: 0 when at least 90% of the runs flagged the slowed case, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-10}"
OUT="${2:-/tmp/mlbench_detection}"
SLOWDOWN="${3:-1.25}"
GATE_ARGS="${GATE_ARGS:-}"
CASE="BM_Fake/cpu/axpy/N:262144"

. gate/experiment_snapshot.sh
snapshot_binaries "$OUT"
BENCH_ARGS="--binaries=$SNAP/fake_bench --filter=cpu/(axpy|tokens) --quick --repetitions=${REPS:-9} --suite=detection"

AB="${AB:-}"
start=$(date +%s)
if [ -n "$AB" ]; then
  # The base side: copies of the same binaries (bench --against_runfiles looks a binary given
  # as a file up by its name there, and the calibration binary under mlbench/).
  mkdir -p "$SNAP/base.runfiles"
  cp -rL "$BIN/tools/bench/bench.runfiles/mlbench" "$SNAP/base.runfiles/mlbench"
  cp "$SNAP/fake_bench" "$SNAP/base.runfiles/"
  export MLBENCH_FAKE_SLOWDOWN_SIDE=current
  bench() { "$SNAP/bench" $BENCH_ARGS --against_runfiles="$SNAP/base.runfiles" --out="$1" > "${1%.json}.bench.txt" 2>&1; }
  gate() { "$SNAP/gate" --current="$1" --against="${1%.json}.base.json" $GATE_ARGS "${@:2}"; }
  echo "detection: A/B runs, the current side slowed x$SLOWDOWN"
else
  bench() { "$SNAP/bench" $BENCH_ARGS --out="$1" > "${1%.json}.bench.txt" 2>&1; }
  gate() { "$SNAP/gate" --current="$1" --baseline_dir="$OUT/baselines" $GATE_ARGS "${@:2}"; }
  echo "detection: recording the baseline (MLBENCH_FAKE_SLOWDOWN unset)"
  MLBENCH_FAKE_SLOWDOWN= bench "$OUT/baseline_run.json"
  gate "$OUT/baseline_run.json" --update > "$OUT/baseline_update.txt"
fi

hits=0
others=0
printf "%-4s %-5s %-34s %s\n" run exit "$CASE" "other REGRESSED"
for i in $(seq 1 "$RUNS"); do
  run="$OUT/run_$i.json"
  MLBENCH_FAKE_SLOWDOWN="$SLOWDOWN" bench "$run"
  set +e
  gate "$run" --summary="$OUT/run_$i.gate.md" > "$OUT/run_$i.gate.txt"; rc=$?
  set -e
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then echo "gate exited $rc in run $i:"; cat "$OUT/run_$i.gate.txt"; exit 2; fi
  line=$(grep -F " $CASE " "$OUT/run_$i.gate.txt" | head -1)
  status=$(echo "$line" | awk '{print $1}')
  change=$(echo "$line" | grep -oE '[+-][0-9.]+%' | head -1)
  other=$(grep "^REGRESSED" "$OUT/run_$i.gate.txt" | grep -vcF " $CASE " || true)
  [ "$status" = "REGRESSED" ] && hits=$((hits + 1))
  others=$((others + other))
  printf "%-4s %-5s %-34s %s\n" "$i" "$rc" "$status $change" "$other"
done
echo "detection${AB:+ (A/B)}: $CASE slowed x$SLOWDOWN reported REGRESSED in $hits of $RUNS runs; other cases REGRESSED: $others ($(( $(date +%s) - start )) s; files in $OUT)"
[ $((hits * 10)) -ge $((RUNS * 9)) ]
