#!/usr/bin/env bash
# A DISTURBED run, end to end (accounting/disturbed.h): a rate above the ceiling it is divided by,
# or peak probes before and after the timed steps that differ by more than 10%.
#  1. gpt_step with --peak_flops far below what it achieves (MFU > 100%): the summary's first line
#     says DISTURBED with the reason, the JSON case has disturbed=1 and a label with the reason
#     (verified stays 1: the output is right, the ceiling is not), and the gate refuses it: exit 2,
#     naming the reason, against a baseline recorded from a normal run and --against that run.
#  2. The normal run (--peak_flops=1e15) is not flagged: disturbed=0, and the gate passes it.
#  3. The before/after rule: the start-up FMA probe, and an after-run probe made slow on demand
#     (MLBENCH_TEST_AFTER_PROBE_SCALE=0.1): DISTURBED, the peak line names both probes and the
#     run divides by the best; a malformed value is exit 2.
#  4. gpt_decode and 1-rank ddp_step with --peak_flops=1e8: the same verdict and counter.
# The third rule, a start-up figure far below this machine's record, is macro/busy_machine_test.sh's;
# here the record is a file in the test's folder, which the probed runs above never raise (the
# after-probe is scaled on demand).
# Args: GPT_STEP GPT_DECODE DDP_STEP GATE
set -u
STEP=$(readlink -f "$1"); DECODE=$(readlink -f "$2"); DDP=$(readlink -f "$3"); GATE=$(readlink -f "$4")
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
export MLBENCH_PEAK_RECORD="$TMP/peak_record.json"  # never the user's record (harness/peak_record.h)
fail() { echo "FAIL: $*"; exit 1; }
TINY=(--preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=2 --device=cpu --threads=1)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none

# summary_line LOG: the first line of the summary.
summary_line() { grep -m1 "^== summary: " "$1"; }

# json_case FILE EXPR: python asserts on the single benchmark entry `b` of a Google Benchmark JSON.
json_case() {
  python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
b = [e for e in j["benchmarks"] if e.get("run_type", "iteration") == "iteration"]
assert b, "no iteration entry"
b = b[0]
ok = eval(sys.argv[2])
assert ok, f"{sys.argv[2]} is false for {json.dumps(b, indent=1)}"
PY
}

echo "== 1. gpt_step --peak_flops=1e8: MFU far above 100%"
"$STEP" "${TINY[@]}" --peak_flops=1e8 --benchmark_out="$TMP/dist.json" >"$TMP/dist.log" 2>&1 \
  || { cat "$TMP/dist.log"; fail "disturbed run exited non-zero (the binary itself still exits 0)"; }
first=$(summary_line "$TMP/dist.log")
echo "$first"
[[ "$first" == *"| DISTURBED: MFU "*"% > 100%: "*"achieved above the ceiling "*" FLOP/s"* ]] \
  || { cat "$TMP/dist.log"; fail "the summary's first line does not say DISTURBED with the MFU reason"; }
json_case "$TMP/dist.json" 'b["disturbed"] == 1 and b["verified"] == 1 and b["mfu"] > 1 and b["label"].startswith("DISTURBED: MFU ") and "HFU" in b["label"].split(" || ")[0]' \
  || fail "JSON of the disturbed run"

echo "== 2. gpt_step --peak_flops=1e15: not disturbed"
"$STEP" "${TINY[@]}" --peak_flops=1e15 --benchmark_out="$TMP/quiet.json" >"$TMP/quiet.log" 2>&1 \
  || { cat "$TMP/quiet.log"; fail "normal run exited non-zero"; }
first=$(summary_line "$TMP/quiet.log")
echo "$first"
[[ -n "$first" && "$first" != *DISTURBED* ]] || { cat "$TMP/quiet.log"; fail "a normal run is flagged"; }
grep -q "DISTURBED" "$TMP/quiet.log" && { cat "$TMP/quiet.log"; fail "DISTURBED anywhere in a normal run's log"; }
json_case "$TMP/quiet.json" 'b["disturbed"] == 0 and b["verified"] == 1 and not b["label"].startswith("DISTURBED")' \
  || fail "JSON of the normal run"

echo "== the gate: the normal run recorded as a baseline, then the disturbed one against it"
"$GATE" --current="$TMP/quiet.json" --baseline_dir="$TMP/baselines" --update --summary="$TMP/u.md" \
  >"$TMP/gate_update.log" 2>&1 || { cat "$TMP/gate_update.log"; fail "gate --update of the normal run"; }
grep -q "1 case(s) recorded" "$TMP/gate_update.log" || { cat "$TMP/gate_update.log"; fail "nothing recorded"; }
"$GATE" --current="$TMP/quiet.json" --baseline_dir="$TMP/baselines" --summary="$TMP/q.md" >"$TMP/gate_quiet.log" 2>&1
rc=$?
[[ $rc == 0 ]] || { cat "$TMP/gate_quiet.log"; fail "gate on the normal run against its own baseline: rc $rc, want 0"; }
"$GATE" --current="$TMP/dist.json" --baseline_dir="$TMP/baselines" --summary="$TMP/d.md" >"$TMP/gate_dist.log" 2>&1
rc=$?
cat "$TMP/gate_dist.log"
[[ $rc == 2 ]] || fail "gate on the disturbed run: rc $rc, want 2"
grep -q "UNVERIFIED .*DISTURBED: MFU .*> 100%" "$TMP/gate_dist.log" || fail "the gate does not name the reason"
# Never recorded as a baseline.
"$GATE" --current="$TMP/dist.json" --baseline_dir="$TMP/baselines" --update --summary="$TMP/d2.md" \
  >"$TMP/gate_dist_update.log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$TMP/gate_dist_update.log"; fail "gate --update of a disturbed run: rc $rc, want 2"; }
# A/B: --against the normal run.
"$GATE" --current="$TMP/dist.json" --against="$TMP/quiet.json" --summary="$TMP/ab.md" >"$TMP/gate_ab.log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$TMP/gate_ab.log"; fail "gate --against on the disturbed run: rc $rc, want 2"; }
grep -q "DISTURBED: MFU" "$TMP/gate_ab.log" || { cat "$TMP/gate_ab.log"; fail "gate --against: no reason"; }

echo "== 3. the start-up probe and a slow after-run probe (x0.1): before and after differ"
MLBENCH_TEST_AFTER_PROBE_SCALE=0.1 "$STEP" "${TINY[@]}" --benchmark_out="$TMP/probe.json" >"$TMP/probe.log" 2>&1 \
  || { cat "$TMP/probe.log"; fail "probe run exited non-zero"; }
first=$(summary_line "$TMP/probe.log")
echo "$first"
grep "^peak " "$TMP/probe.log"
[[ "$first" == *"| DISTURBED: the peak probes before ("*"GFLOP/s) and after ("*"GFLOP/s) the timed work differ by "*"% > 10%"* ]] \
  || { cat "$TMP/probe.log"; fail "the summary's first line does not name the probes"; }
grep -q "^peak .*best of 2 FMA probes: before [0-9.]* GFLOP/s, after [0-9.]* GFLOP/s, best taken" "$TMP/probe.log" \
  || { cat "$TMP/probe.log"; fail "the peak line does not give both probes"; }
json_case "$TMP/probe.json" 'b["disturbed"] == 1 and b["peak_flops"] == max(b["peak_probe_before"], b["peak_probe_after"]) and b["peak_probe_after"] < 0.9 * b["peak_probe_before"]' \
  || fail "JSON of the probe run: the best probe, both probes"
[[ -e "$MLBENCH_PEAK_RECORD" ]] && fail "a run whose after-probe was scaled on demand wrote this machine's record"
MLBENCH_TEST_AFTER_PROBE_SCALE=abc "$STEP" "${TINY[@]}" >"$TMP/badenv.log" 2>&1
rc=$?
[[ $rc == 2 ]] && grep -q "MLBENCH_TEST_AFTER_PROBE_SCALE=abc is invalid" "$TMP/badenv.log" \
  || { cat "$TMP/badenv.log"; fail "a malformed MLBENCH_TEST_AFTER_PROBE_SCALE: rc $rc, want 2 naming it"; }

echo "== 4. gpt_decode --peak_flops=1e8"
"$DECODE" --preset=test-tiny --device=cpu --threads=1 --warmup_steps=0 --steps=1 --batch=1 --prompt=4 --generate=4 \
  --peak_flops=1e8 --benchmark_out="$TMP/decode.json" >"$TMP/decode.log" 2>&1 \
  || { cat "$TMP/decode.log"; fail "gpt_decode exited non-zero"; }
first=$(summary_line "$TMP/decode.log")
echo "$first"
[[ "$first" == *"| DISTURBED: "*"MFU "*"% > 100%"* ]] || { cat "$TMP/decode.log"; fail "gpt_decode summary"; }
json_case "$TMP/decode.json" 'b["disturbed"] == 1 and "MFU" in b["label"].split(" || ")[0]' || fail "gpt_decode JSON"

echo "== 4b. ddp_step, 1 rank, --peak_flops=1e8"
timeout 60 mpirun -np 1 "$DDP" --preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=2 --device=cpu \
  --threads=1 --peak_flops=1e8 --benchmark_out="$TMP/ddp.json" >"$TMP/ddp.log" 2>&1 \
  || { cat "$TMP/ddp.log"; fail "ddp_step exited non-zero"; }
grep -m1 "^== per-rank figures: " "$TMP/ddp.log" | grep -q "| DISTURBED: rank 0: MFU .*% > 100%" \
  || { cat "$TMP/ddp.log"; fail "ddp_step's table does not say DISTURBED first"; }
json_case "$TMP/ddp.json" 'b["disturbed"] == 1 and b["label"].startswith("DISTURBED: rank 0: MFU")' || fail "ddp_step JSON"
"$GATE" --current="$TMP/ddp.json" --baseline_dir="$TMP/ddp_baselines" --update --summary="$TMP/ddp.md" \
  >"$TMP/gate_ddp.log" 2>&1
rc=$?
[[ $rc == 2 ]] && grep -q "DISTURBED: rank 0: MFU" "$TMP/gate_ddp.log" \
  || { cat "$TMP/gate_ddp.log"; fail "gate on ddp_step's disturbed JSON: rc $rc, want 2 naming the reason"; }
echo "PASS"
