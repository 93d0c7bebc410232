#!/usr/bin/env bash
# ddp_step under mpirun with 2 CPU ranks:
#  1. ddp_equivalence_test_main: one DDP step = one single-rank step over the combined batch,
#     parameters identical on both ranks (also with gradient accumulation).
#  2. ddp_step (when given): prints the per-rank table; a config that differs across ranks
#     (--batch, --cpu_gemm, --json_out given to one rank only) is an error on every rank, exit 2;
#     different --threads are not; a rank that dies ends the job with an error, one that hangs
#     makes the others exit 5 (the timeout's code) within the timeout.
#  3. ddp_step's --benchmark_out (Google Benchmark JSON) is accepted by the gate (when given):
#     recorded as a baseline with --update, then gated against itself: exit 0.
# Args: EQUIVALENCE_BINARY [DDP_STEP_BINARY [GATE_BINARY]]
set -euo pipefail
# The gtest binary run below would write its own report to Bazel's XML_OUTPUT_FILE, and Bazel
# would keep it as this whole test's test.xml (with the binary's time, not the script's).
unset XML_OUTPUT_FILE
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
equiv=$(readlink -f "$1")
step=${2:+$(readlink -f "$2")}
gate=${3:+$(readlink -f "$3")}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
# run_job NAME MPIRUN_ARGS...: `timeout 60 mpirun MPIRUN_ARGS...` into $tmp/NAME.log, then shows
# the log; sets rc (its exit status) and start (when it began). A failure does not stop the script.
run_job() {
  local name=$1
  shift
  start=$(date +%s)
  set +e
  timeout 60 mpirun "$@" > "$tmp/$name.log" 2>&1
  rc=$?
  set -e
  cat "$tmp/$name.log"
}

echo "== equivalence: 2 ranks vs 1 rank over the combined batch"
timeout 120 mpirun -np 2 --oversubscribe "$equiv" > "$tmp/equiv.log" 2>&1 || { cat "$tmp/equiv.log"; fail "equivalence test"; }
cat "$tmp/equiv.log"
[ "$(grep -c '\[  PASSED  \] 4 tests' "$tmp/equiv.log")" = 2 ] || fail "both ranks must pass 4 tests"

[ -n "$step" ] || exit 0

# A fixture peak (--peak_flops), not each rank's start-up FMA probe: this tests DDP, not the probe
# (ddp_peak_test does), and the test's time stays machine-bound.
common=(--preset=test-tiny --seq=16 --batch=2 --warmup_steps=1 --steps=3 --peak_flops=1e12)

echo "== ddp_step, 2 ranks: the per-rank table"
timeout 60 mpirun -np 2 --oversubscribe "$step" "${common[@]}" --grad_accum=2 --json_out="$tmp/ddp.json" \
  --benchmark_out="$tmp/ddp_bm.json" > "$tmp/run.log" 2>&1 \
  || { cat "$tmp/run.log"; fail "2-rank run"; }
cat "$tmp/run.log"
grep -q "per-rank figures" "$tmp/run.log" || fail "no per-rank table"
grep -q "ddp_step: --cpu_gemm=auto: rank 0's 15 GEMM shapes run .* on " "$tmp/run.log" || fail "no per-shape GEMM choice line"
# rank, host, local rank, step ms, exposed ms, comm ms, exposed %, tokens/s, loss, peak, MFU
for q in 0 1; do
  grep -Eq "^ +$q +[^ ]+ +$q +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% .*%$" "$tmp/run.log" || fail "no table row for rank $q"
done
grep -q "^comm          all-reduce of 0.03149 MB of fp32 gradients per step, in buckets overlapped with backward" "$tmp/run.log" \
  || fail "no all-reduce line (size, overlap)"
grep -q "^lost to communication (exposed): " "$tmp/run.log" || fail "no exposed-communication line"
grep -q "MFU per rank  min .* median .* max .* mean" "$tmp/run.log" || fail "no min/median/max/mean line"
grep -q "numerator     LOCAL work per rank" "$tmp/run.log" || fail "numerator not stated"
grep -q "ONE device's peak" "$tmp/run.log" || fail "denominator not stated"
grep -q "identical on every rank" "$tmp/run.log" || fail "parameters not identical"
grep -q '"params_identical": true' "$tmp/ddp.json" || fail "json"
grep -q '"mlbench_attention_impl": "cpu"' "$tmp/ddp.json" || fail "--json_out has no mlbench_attention_impl cpu"

echo "== ddp_step --dtype=bf16, 2 ranks: mixed precision on each rank (where oneDNN runs bf16)"
if timeout 60 mpirun -np 2 --oversubscribe "$step" "${common[@]}" --dtype=bf16 \
    > "$tmp/bf16.log" 2>&1; then
  grep -q "BM_DdpStep/test-tiny/cpu/bf16/" "$tmp/bf16.log" || { cat "$tmp/bf16.log"; fail "no bf16 case"; }
  grep -q "bf16 on oneDNN's matmul primitive" "$tmp/bf16.log" || { cat "$tmp/bf16.log"; fail "the ranks' GEMMs are not bf16"; }
  grep -q "identical on every rank" "$tmp/bf16.log" || fail "bf16: parameters not identical across ranks"
elif grep -q avx512f /proc/cpuinfo; then
  cat "$tmp/bf16.log"; fail "--dtype=bf16 refused on a CPU with AVX-512"
else
  grep -q "oneDNN cannot run a bf16 matmul here" "$tmp/bf16.log" || { cat "$tmp/bf16.log"; fail "bf16 refused without the reason"; }
fi

echo "== --benchmark_out: Google Benchmark JSON, one iteration entry per timed step"
python3 - "$tmp/ddp_bm.json" <<'PY' || fail "benchmark JSON shape"
import json, sys
j = json.load(open(sys.argv[1]))
assert "mlbench_run_context" in j["context"] and "num_cpus" in j["context"], j["context"].keys()
assert j["context"]["mlbench_attention_impl"] == "cpu", j["context"]
b = j["benchmarks"]
assert len(b) == 3, len(b)  # --steps=3
for i, e in enumerate(b):
    assert e["name"] == "BM_DdpStep/test-tiny/cpu/fp32/B:2/T:16/ranks:2/accum:2", e["name"]
    assert e["run_type"] == "iteration" and e["iterations"] == 1 and e["repetition_index"] == i, e
    assert e["time_unit"] == "ms" and e["real_time"] > 0 and e["cpu_time"] > 0, e
    assert e["verified"] == 1 and e["ranks"] == 2 and 0 < e["mfu_min"] <= e["mfu"] < 1, e
    # tokens/s of the job: 2 ranks x B=2 x accum=2 x T=16 tokens over the slowest rank's step.
    assert abs(e["tokens_per_second"] - 128 / (e["real_time"] / 1e3)) < 1e-6 * e["tokens_per_second"], e
PY
if [ -n "$gate" ]; then
  echo "== the gate reads it: --update records a baseline, then the run gated against itself passes"
  "$gate" --current="$tmp/ddp_bm.json" --update --baseline_dir="$tmp/baselines" > "$tmp/gate_update.log" 2>&1 \
    || { cat "$tmp/gate_update.log"; fail "gate --update on ddp_step's JSON"; }
  grep -q "1 case(s) recorded" "$tmp/gate_update.log" || { cat "$tmp/gate_update.log"; fail "gate recorded no case"; }
  "$gate" --current="$tmp/ddp_bm.json" --baseline_dir="$tmp/baselines" > "$tmp/gate.log" 2>&1 \
    || { cat "$tmp/gate.log"; fail "gate against its own baseline (rc $?)"; }
  cat "$tmp/gate.log"
  grep -q "BM_DdpStep/test-tiny" "$tmp/gate.log" || fail "the gate's table lacks the case"
fi

echo "== --help: exit 0 with the usage and ddp_step's flags"
help=$("$step" --help) || fail "--help exited $?"
grep -q "mpirun -np N ddp_step" <<<"$help" || fail "--help lacks the usage"
grep -q -- "--benchmark_out" <<<"$help" || fail "--help lacks --benchmark_out"
grep -q -- "--preset" <<<"$help" || fail "--help lacks the shared step flags"

echo "== --timeout_s must be a finite number of seconds (NaN would disarm the watchdog)"
set +e
msg=$("$step" "${common[@]}" --timeout_s=nan 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--timeout_s=nan exited $rc, expected 2: $msg"
grep -q -- "--timeout_s=nan is not a finite number" <<<"$msg" || fail "--timeout_s=nan: $msg"

echo "== the world size MPI reports against the launcher's: a mismatch is refused before any step"
run_job wsize -np 2 --oversubscribe -x MLBENCH_EXPECTED_WORLD_SIZE=3 "$step" "${common[@]}"
[ $rc -eq 2 ] || fail "a world-size mismatch must exit 2 (rc=$rc)"
grep -q "MLBENCH_EXPECTED_WORLD_SIZE=3 (the launcher asked for 3 processes) but MPI says this is rank [01] of 2" \
  "$tmp/wsize.log" || fail "world-size mismatch message"
! grep -q "^step" "$tmp/wsize.log" || fail "no step may run with a world-size mismatch"
# A launcher that does not speak OpenMPI's PMI (MPICH's, srun without --mpi=pmix) starts each
# process alone, rank 0 of 1, leaving its own count in the environment: refused, not trained.
set +e
msg=$(PMI_SIZE=2 PMI_RANK=1 timeout 60 "$step" "${common[@]}" 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a singleton under PMI_SIZE=2 exited $rc, expected 2: $msg"
grep -q "PMI_SIZE=2 .* rank 0 of 1.*PMI mismatch" <<<"$msg" || fail "singleton message: $msg"

echo "== --bucket_mb must be a size; --overlap=false: one all-reduce after backward"
set +e
msg=$("$step" "${common[@]}" --bucket_mb=0 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q -- "--bucket_mb=0 is invalid" <<<"$msg" || fail "--bucket_mb=0 (rc $rc): $msg"
# A bucket size without buckets means nothing: refused, not silently unused (as --bucket_mb 5).
set +e
msg=$("$step" "${common[@]}" --overlap=false --bucket_mb 5 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q -- "--bucket_mb=5 has no effect with --overlap=false" <<<"$msg" \
  || fail "--overlap=false --bucket_mb 5 (rc $rc): $msg"
run_job nooverlap -np 2 --oversubscribe "$step" "${common[@]}" --overlap=false
[ $rc -eq 0 ] || fail "--overlap=false (rc=$rc)"
grep -q "overlap: off (--overlap=false)" "$tmp/nooverlap.log" && grep -q "(no overlap: all of it)" "$tmp/nooverlap.log" \
  || fail "--overlap=false not reported"

echo "== a rank whose GEMM library runs another kernel (oneDNN capped at AVX2): flagged in the table"
run_job isa -np 1 env ONEDNN_MAX_CPU_ISA=AVX2 "$step" "${common[@]}" --cpu_gemm=onednn : -np 1 "$step" "${common[@]}" --cpu_gemm=onednn
[ $rc -eq 0 ] || fail "ranks on different kernels must still run (rc=$rc)"
if grep -q "avx512" /proc/cpuinfo; then  # only then does the cap change oneDNN's kernel
  grep -Eq "^ +1 +[^ ]+ +1 .*%  \*$" "$tmp/isa.log" || fail "rank 1 (another kernel) is not starred"
  grep -q "^\* this rank's machine differs from rank 0's" "$tmp/isa.log" || fail "no line naming the differing machine"
  grep -q "^  rank 1 (" "$tmp/isa.log" || fail "rank 1's machine not named"
fi

echo "== configs that differ across ranks: an error on every rank, at start"
run_job mismatch -np 1 "$step" "${common[@]}" : -np 1 "$step" --preset=test-tiny --seq=16 --batch=3 --warmup_steps=1 --steps=3 --peak_flops=1e12
[ $rc -ne 0 ] || fail "a config mismatch must fail"
grep -q "configuration differs across ranks" "$tmp/mismatch.log" || fail "mismatch message"
grep -q -- "rank 1: --batch=3 (rank 0: --batch=2)" "$tmp/mismatch.log" || fail "mismatch must name rank 1's flag"
! grep -q "step .*timed" "$tmp/mismatch.log" || fail "no step may run with a mismatch"

echo "== ranks given different --cpu_gemm: refused (the check compares every flag of the table)"
run_job gemm -np 1 "$step" "${common[@]}" --cpu_gemm=onednn : -np 1 "$step" "${common[@]}" --cpu_gemm=openblas
[ $rc -eq 2 ] || fail "mixed --cpu_gemm must exit 2 (rc=$rc)"
grep -q -- "rank 1: --cpu_gemm=openblas (rank 0: --cpu_gemm=onednn)" "$tmp/gemm.log" || fail "mixed --cpu_gemm message"
! grep -q "step .*timed" "$tmp/gemm.log" || fail "no step may run with mixed --cpu_gemm"

echo "== --json_out given to one rank only: refused (rank 0 writes it; rank 1's would be ignored)"
run_job json_one -np 1 "$step" "${common[@]}" : -np 1 "$step" "${common[@]}" --json_out="$tmp/rank1.json"
[ $rc -eq 2 ] || fail "--json_out on rank 1 only must exit 2 (rc=$rc)"
grep -q -- "rank 1: --json_out given (rank 0: --json_out not given)" "$tmp/json_one.log" || fail "--json_out message"
[ ! -e "$tmp/rank1.json" ] || fail "--json_out on one rank wrote a file"

echo "== --threads may differ (each rank's own CPUs)"
# 1 and 0 (every CPU the rank may run on): mpirun may bind each rank to one core, where
# --threads=2 is refused as more than the rank's CPUs.
run_job threads -np 1 "$step" "${common[@]}" --threads=1 : -np 1 "$step" "${common[@]}" --threads=0
[ $rc -eq 0 ] || fail "different --threads must be accepted (rc=$rc)"

echo "== a rank that dies: the job ends with an error"
run_job die -np 2 --oversubscribe "$step" "${common[@]}" --test_exit_rank=1 --test_fail_step=2 --timeout_s=10
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a dead rank must end the job with an error (rc=$rc)"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "took too long after a rank died"

echo "== a rank that hangs: the others exit after --timeout_s"
run_job hang -np 2 --oversubscribe "$step" "${common[@]}" --test_hang_rank=1 --test_fail_step=2 --timeout_s=2
[ $rc -eq 5 ] || fail "a hung rank: the others must exit 5, the timeout's code (rc=$rc)"
grep -q "did not finish within 2.0 s" "$tmp/hang.log" || fail "timeout message"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "hang not bounded by the timeout"
echo "PASS"
