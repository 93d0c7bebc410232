#!/usr/bin/env bash
# False-alarm experiment for tools/gate: record a baseline of the quick suite on this
# machine, then run the same suite RUNS times (default 10) on unchanged code and gate each run
# against that baseline. A run that reports any REGRESSED case is a false alarm. Each run is
# gated three ways: with the default options (the CI gate), with --normalize (divide by the
# calibration ratio) and with --holm=false (no family-wise correction), so the report shows
# what each choice does on this machine.
#
#   tools/gate/false_alarm_experiment.sh [RUNS] [OUTDIR]
#   BENCH_ARGS="--filter=... --binaries=..." tools/gate/false_alarm_experiment.sh   # another suite
#   GATE_ARGS="--threshold=0.10" tools/gate/false_alarm_experiment.sh               # gate options
#   BASELINE_DIR=tools/gate/baselines tools/gate/false_alarm_experiment.sh   # gate against a stored baseline
#
# Without BASELINE_DIR a baseline is recorded first into OUTDIR/baselines (never into
# tools/gate/baselines), pooled over BASELINE_RUNS runs (default 3, gate --update --pool) as the
# stored CI baseline is; with it, the stored baseline is used read-only. Binaries are built once and
# run from a snapshot copy (no bazel server in the loop, no rebuild can change them).
#   AB=1 tools/gate/false_alarm_experiment.sh     # A/B mode: each run is an A/B run of the same
#                                            # binaries (bench --against_runfiles=<snapshot>),
#                                            # gated paired (gate --against), no baseline
#
# Exit status: 0 when no run raised a regression with the default options, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-10}"
OUT="${2:-/tmp/mlbench_false_alarm}"
BENCH_ARGS="${BENCH_ARGS:---quick --repetitions=9}"
GATE_ARGS="${GATE_ARGS:-}"
case "$BENCH_ARGS" in *--repetitions=*) ;; *) BENCH_ARGS="$BENCH_ARGS --repetitions=9" ;; esac

. gate/experiment_snapshot.sh
snapshot_binaries "$OUT"
BASELINES="${BASELINE_DIR:-$OUT/baselines}"
case "$BASELINES" in /*) ;; *) BASELINES="$PWD/$BASELINES" ;; esac

AB="${AB:-}"
if [ -n "$AB" ]; then
  # The base side: the very same binaries, from a second copy of the snapshot.
  cp -rL "$BIN/tools/bench/bench.runfiles" "$SNAP/base.runfiles"
  bench() { "$SNAP/bench" $BENCH_ARGS --against_runfiles="$SNAP/base.runfiles" --out="$1" > "${1%.json}.bench.txt" 2>&1; }
  gate() { "$SNAP/gate" --current="$1" --against="${1%.json}.base.json" $GATE_ARGS "${@:2}"; }
else
  bench() { "$SNAP/bench" $BENCH_ARGS --out="$1" > "${1%.json}.bench.txt" 2>&1; }
  gate() { "$SNAP/gate" --current="$1" --baseline_dir="$BASELINES" $GATE_ARGS "${@:2}"; }
fi
regressed() { grep -c "^REGRESSED" "$1" || true; }

start=$(date +%s)
if [ -n "$AB" ]; then
  echo "false alarms: A/B runs of identical binaries ($BENCH_ARGS; gate --against $GATE_ARGS)"
elif [ -z "${BASELINE_DIR:-}" ]; then
  n_base="${BASELINE_RUNS:-3}"
  for b in $(seq 1 "$n_base"); do
    echo "false alarms: recording baseline run $b of $n_base ($BENCH_ARGS) at $(date -u +%H:%M:%S)," \
         "load $(cut -d' ' -f1-3 /proc/loadavg)"
    bench "$OUT/baseline_run_$b.json"
    gate "$OUT/baseline_run_$b.json" --update --pool="$n_base" > "$OUT/baseline_update_$b.txt"
    grep -E "^gate: baseline .* (created|updated)" "$OUT/baseline_update_$b.txt" || true
  done
else
  echo "false alarms: against the stored baselines in $BASELINES ($BENCH_ARGS; gate $GATE_ARGS)"
fi

alarms=0; norm_alarms=0; raw_alarms=0
printf "%-4s %-5s %-9s %-10s %-12s %-8s %-9s %s\n" run exit regressed normalized uncorrected cal_ratio load "largest change"
for i in $(seq 1 "$RUNS"); do
  run="$OUT/run_$i.json"
  bench "$run"
  load=$(cut -d' ' -f1 /proc/loadavg)
  set +e
  gate "$run" --summary="$OUT/run_$i.gate.md" > "$OUT/run_$i.gate.txt"; rc=$?
  gate "$run" --normalize --summary="$OUT/run_$i.norm.gate.md" > "$OUT/run_$i.norm.gate.txt"; norm_rc=$?
  gate "$run" --holm=false --summary="$OUT/run_$i.raw.gate.md" > "$OUT/run_$i.raw.gate.txt"; raw_rc=$?
  set -e
  # Exit codes: 0 passed, 3 regressed; anything else (no baseline, a broken run) stops here.
  for code in "$rc" "$norm_rc" "$raw_rc"; do
    if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
      echo "gate exited $code in run $i:"; cat "$OUT/run_$i.gate.txt" "$OUT/run_$i.bench.txt" | tail -30; exit 2
    fi
  done
  [ "$rc" -eq 3 ] && alarms=$((alarms + 1))
  [ "$norm_rc" -eq 3 ] && norm_alarms=$((norm_alarms + 1))
  [ "$raw_rc" -eq 3 ] && raw_alarms=$((raw_alarms + 1))
  cal=$(sed -n 's/^gate: calibration: .* ran \([0-9.]*x\) .*/\1/p' "$OUT/run_$i.gate.txt")
  # Largest |change| among compared cases, with its name.
  big=$(awk '$1=="SAME"||$1=="REGRESSED"||$1=="IMPROVED" { for (f=3; f<=NF; f++) if ($f ~ /^[+-][0-9.]+%$/) {
               v=substr($f, 1, length($f)-1)+0; a=v<0?-v:v; if (a>m) {m=a; best=$2" "$f} } }
             END {print best}' "$OUT/run_$i.gate.txt")
  printf "%-4s %-5s %-9s %-10s %-12s %-8s %-9s %s\n" "$i" "$rc" "$(regressed "$OUT/run_$i.gate.txt")" \
    "$(regressed "$OUT/run_$i.norm.gate.txt")" "$(regressed "$OUT/run_$i.raw.gate.txt")" "${cal:-none}" "$load" "$big"
done
secs=$(( $(date +%s) - start ))
echo "false alarms${AB:+ (A/B)}: $alarms of $RUNS runs with the default gate; $norm_alarms with --normalize;" \
     "$raw_alarms with --holm=false ($secs s; files in $OUT)"
[ "$alarms" -eq 0 ]
