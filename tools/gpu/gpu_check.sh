#!/usr/bin/env bash
# Runs on the GPU machine (no Bazel there), from the bundle tools/gpu/gpu_bundle.sh made:
#   bash .gpu/gpu_check.sh OUTDIR
# Unpacks the runtime .debs into /tmp/deps (never into /), finds the machine's cuBLAS, NCCL and
# cuDNN (the bundle carries none of them; cuDNN is opened at run time, and without it
# --attention_impl=auto runs the attention kernels),
# prints nvidia-smi and ldd of one binary, then runs, in this order: devices, //macro:gpt_step
# (GPT-2 124M, batch 12, seq 1024, bf16: the main result, right after the probe) in four modes:
# --attention_impl=auto (cuDNN after its self-check) and =kernels, each without and with
# --cuda_graph (captured, checked once against an uncaptured step, replayed), //macro:gpt_decode
# (GPT-2 124M bf16 decode, batch sweep 1..64, against the bandwidth bound), the CUDA tests,
# memcheck of a tiny gpt_step, ddp_step on 1 rank and the quick micro cases. The argument lists
# are tools/gpu/gpu_check_args.sh's (sourced; CI runs each on the CPU first).
#
# OUTDIR holds three files, since a device call returns at most 8: summary.txt (a verdict line
# per step), log.txt (the machine: nvidia-smi, libraries, ldd; then each step's command and the
# last lines of its output) and results.tar.gz (every JSON and each step's whole output,
# steps/NAME.log), packed again after every step so that a run cut short still returns what it
# measured. The work folder is a temporary one outside OUTDIR.
#
# One overall deadline (GPU_CHECK_DEADLINE_S, default 540 s, counted from the start) keeps the
# whole check inside one 600 s device command: a step whose own limit would overrun it is not
# started and is marked SKIPPED. Verdicts: PASS only when the step ran and did its work;
#   FAIL     non-zero exit, or a run that did nothing: a gtest that skipped (GTEST_SKIP), a
#            benchmark whose cases were skipped (SkipWithError) or not registered (a micro
#            binary registers no CUDA case without a usable device, and says why), no JSON
#            written, no CUDA device;
#   TIMEOUT  the step's own limit;
#   SKIPPED  not in the bundle, no compute-sanitizer, or the deadline.
# An --attention_impl=auto step FAILs too when it ran the kernels on a machine that has cuDNN
# (its JSON context's mlbench_attention_impl; the reason is its mlbench_attention_choice).
# Each step runs under `timeout -k 15 LIMIT`: a step stuck in the driver that outlives SIGTERM is
# killed 15 s later, and the deadline counts those 15 s.
# Every verdict other than PASS carries its reason. Exit status 0 only when every step passed.
# GPU_CHECK_DEPS: where the .debs are unpacked (default /tmp/deps). tools/gpu/gpu_check_selftest.sh
# runs this without a GPU: every CUDA step must FAIL or be SKIPPED there, never PASS.
set -uo pipefail

# --- how a step's output is judged (beyond its exit status) ----------------------------------
# Each prints nothing when the step did its work, else the reason it did not.
# devices: a probe that finds no CUDA device fails (and says so in the summary).
check_devices() {
  grep -m1 "^no CUDA device" "$1" || true
}
# gtest: any skipped test (GTEST_SKIP: no usable device) or no test at all.
check_gtest() {
  local log="$1"
  if grep -q '^\[  SKIPPED \]' "$log"; then
    local n reason
    n=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$log" | head -1)
    reason=$(grep -m1 -A1 ': Skipped$' "$log" | sed -n 2p)
    echo "skipped ${n:-some} test(s): ${reason:-see the log}"
  elif ! grep -q '^\[  PASSED  \] [1-9]' "$log"; then
    echo "no test passed (filter matched nothing?)"
  fi
}
# Google Benchmark JSON (--benchmark_out): at least one case, and none skipped with an error.
# LOG (optional, the step's output): a micro binary that found no usable CUDA device does not
# register its CUDA cases and says so on stderr ("N CUDA case(s) not registered: no CUDA
# device: <reason>"); that line is the reason a CUDA-only step selected nothing.
check_bench_json() {
  local json="$1" log="${2:-}" left=""
  [[ -n "$log" && -f "$log" ]] && left="$(grep -m1 -o '[0-9]* CUDA case(s) not registered: .*' "$log")"
  [[ -s "$json" ]] || { echo "no benchmark JSON written ($(basename "$json"))${left:+: $left}"; return; }
  local runs errs msg
  runs=$(grep -c '"run_name":' "$json")
  errs=$(grep -c '"error_occurred": true' "$json")
  if (( runs == 0 )); then echo "no case ran (the filter matched nothing)${left:+: $left}"; return; fi
  if (( errs > 0 )); then
    msg=$(grep -m1 '"error_message":' "$json" | sed 's/.*"error_message": "\(.*\)",\{0,1\}$/\1/; s/^skipped: //')
    # A skip (harness/skip.h: "skipped: <reason>") or an error: either way the step did not
    # measure what it is for on a GPU machine.
    if (( errs == runs )); then echo "all $runs case(s) skipped: $msg"; else echo "$errs of $runs case(s) skipped or failed: $msg"; fi
  fi
}
# A file the step must write.
check_file() {
  [[ -s "$1" ]] || echo "did not write $(basename "$1")"
}
# compute-sanitizer's report.
check_memcheck() {
  grep -q "ERROR SUMMARY: 0 errors" "$1" || echo "no 'ERROR SUMMARY: 0 errors' in the output"
}
# A string value of the JSON context (one "key": "value" per line, as the binaries write it).
json_context_value() {  # JSON KEY
  sed -n "s/^ *\"$2\": \"\(.*\)\",\{0,1\}\$/\1/p" "$1" | head -1
}
# An --attention_impl=auto step (CUDNN: find_cudnn's answer): check_bench_json's checks, and on a
# machine with cuDNN its JSON must record that cuDNN ran, not the kernels.
check_auto_step() {  # JSON [LOG]
  local why impl
  why="$(check_bench_json "$@")"
  if [[ -n "$why" ]]; then echo "$why"; return; fi
  [[ "${CUDNN:-no libcudnn}" == "no libcudnn"* ]] && return
  impl="$(json_context_value "$1" mlbench_attention_impl)"
  [[ "$impl" == "cudnn" ]] && return
  echo "auto ran '${impl:-unrecorded}' attention although cuDNN is here (${CUDNN}): $(json_context_value "$1" mlbench_attention_choice)"
}

# The first libcudnn.so.9 on a ':'-separated library path (what the binaries' dlopen finds first,
# after their own runpath), or why there is none.
find_cudnn() {
  local d
  local -a dirs
  IFS=: read -r -a dirs <<< "$1"
  for d in "${dirs[@]}"; do
    if [[ -n "$d" && -e "$d/libcudnn.so.9" ]]; then echo "$d/libcudnn.so.9"; return; fi
  done
  # Then the system's (ldconfig's cache: a Debian cuDNN package).
  d="$(ldconfig -p 2>/dev/null | awk '$1 == "libcudnn.so.9" {print $NF; exit}')"
  if [[ -n "$d" ]]; then echo "$d (system)"; return; fi
  echo "no libcudnn.so.9 found (--attention_impl=auto runs the attention kernels; cudnn fails)"
}

# The work folder packed into $RESULTS (a temporary name, then renamed: never half-written).
pack() {
  tar -C "$W" -czf "$RESULTS.tmp" . 2>> "$LOG" && mv -f "$RESULTS.tmp" "$RESULTS"
}
say() { echo "$*" | tee -a "$SUMMARY"; }
# --- running a step ------------------------------------------------------------------------
# (They use the globals set below: t0, DEADLINE_S, KILL_GRACE_S, W, LOG, SUMMARY, RESULTS.)
record() {  # record VERDICT NAME SECONDS [REASON]
  local verdict="$1" name="$2" secs="$3" reason="${4:-}"
  case "$verdict" in PASS) n_pass=$((n_pass + 1)) ;; SKIPPED) n_skip=$((n_skip + 1)) ;; *) n_fail=$((n_fail + 1)) ;; esac
  say "$(printf '%-8s %-36s %4ss%s' "$verdict" "$name" "$secs" "${reason:+  $reason}")"
}
# step NAME LIMIT_S CHECK CMD...: runs CMD with its own time limit if the deadline allows it;
# CHECK is a check_* function above, with the file it reads when that is not the step's own
# output ("check_gtest", "check_bench_json FILE"; the step's log is appended), or "-".
step() {
  local name="$1" limit="$2" check="$3"; shift 3
  local exe="$1"
  if [[ "$exe" == */* && ! -x "$exe" ]]; then record SKIPPED "$name" 0 "not in the bundle: $(basename "$exe")"; return; fi
  local now left
  now=$(date +%s); left=$(( t0 + DEADLINE_S - now ))
  if (( left < limit + KILL_GRACE_S )); then
    record SKIPPED "$name" 0 "would overrun the ${DEADLINE_S}s deadline: its limit is ${limit}s (+${KILL_GRACE_S}s to kill it), ${left}s left"
    return
  fi
  local slog="$W/steps/$name.log"
  echo "=== $name: $*" >> "$LOG"
  # In the background, waited for at most limit + grace + 5 s: a process stuck in the driver
  # (uninterruptible) survives even SIGKILL, and `timeout` would wait for it; such a step is
  # abandoned, so the check still ends inside its deadline.
  # (In a subshell whose own stderr is dropped: bash's "Killed" notice for a step that SIGKILL
  # ended would otherwise land in the middle of the summary.)
  ( timeout -k "$KILL_GRACE_S" "$limit" "$@" > "$slog" 2>&1; exit $? ) 2>/dev/null &
  local pid=$! rc=0 give_up=$(( $(date +%s) + limit + KILL_GRACE_S + 5 ))
  while kill -0 "$pid" 2>/dev/null && (( $(date +%s) < give_up )); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    disown "$pid" 2>/dev/null
    rc=-1
  else
    wait "$pid"; rc=$?
  fi
  echo "--- the last 30 lines (all of it: steps/$name.log in results.tar.gz)" >> "$LOG"
  tail -n 30 "$slog" >> "$LOG"
  local secs=$(( $(date +%s) - now )) why=""
  if [[ "$check" != "-" ]]; then why="$($check "$slog")"; fi
  if (( rc == -1 )); then
    record "TIMEOUT" "$name" "$secs" "still running after its ${limit}s limit's SIGTERM and SIGKILL (stuck in the driver?); abandoned${why:+; $why}"
  elif (( rc == 124 || rc == 137 )); then
    record "TIMEOUT" "$name" "$secs" "its ${limit}s limit$( (( rc == 137 )) && echo ", killed ${KILL_GRACE_S}s after SIGTERM")${why:+; $why}"
  elif (( rc != 0 )); then
    local last
    last="$(grep -v '^[[:space:]]*$' "$slog" | tail -1 | cut -c1-200)"
    record "FAIL" "$name" "$secs" "exit $rc${why:+; $why}${last:+; last line: $last}"
  elif [[ -n "$why" ]]; then
    record "FAIL" "$name" "$secs" "$why"
  else
    record "PASS" "$name" "$secs"
  fi
  pack
}
# Sourced (tools/gpu/gpu_check_selftest.sh tests the checks and the step runner): the functions only.
if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then return 0; fi

OUT="${1:?usage: gpu_check.sh OUTDIR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
DEADLINE_S="${GPU_CHECK_DEADLINE_S:-540}"
KILL_GRACE_S=15  # timeout -k: SIGKILL this long after a step's SIGTERM
t0=$(date +%s)
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/log.txt"; SUMMARY="$OUT/summary.txt"; RESULTS="$OUT/results.tar.gz"
: > "$LOG"; : > "$SUMMARY"
rm -f "$RESULTS"  # an earlier run's results must not pass for this run's
W="$(mktemp -d /tmp/gpu_check.XXXXXX)"  # JSON and step logs; packed into $RESULTS
mkdir -p "$W/steps"
n_pass=0; n_fail=0; n_skip=0
# shellcheck source=tools/gpu/gpu_check_args.sh
source "$HERE/gpu_check_args.sh"

# --- binaries and libraries ---------------------------------------------------------------
# The bundle's binaries come gzip'd (gpu_bundle.sh): unpacked next to this script, over any
# earlier copy.
if [[ -f "$HERE/bin.tar.gz" ]]; then rm -rf "$HERE/bin" && tar -C "$HERE" -xzf "$HERE/bin.tar.gz"; fi
DEPS="${GPU_CHECK_DEPS:-/tmp/deps}"  # where the .debs are unpacked (never /)
mkdir -p "$DEPS"
for deb in "$HERE"/debs/*.deb; do dpkg -x "$deb" "$DEPS"; done
cuda_dirs=()
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -e "$d/libcublas.so.13" || -e "$d/libcublasLt.so.13" || -e "$d/libnccl.so.2" || -e "$d/libcudnn.so.9" ]] \
    && cuda_dirs+=("$d")
done
for py in python3 /opt/torch/.venv/bin/python3; do
  site="$($py -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null)" || continue
  for s in $site; do
    for d in "$s"/nvidia/cu13/lib "$s"/nvidia/*/lib; do [[ -d "$d" ]] && cuda_dirs+=("$d"); done
  done
done
LIBPATH="$DEPS/usr/lib/x86_64-linux-gnu:$DEPS/usr/lib/x86_64-linux-gnu/openblas-openmp:$DEPS/lib/x86_64-linux-gnu"
for d in "${cuda_dirs[@]}"; do LIBPATH="$LIBPATH:$d"; done
LIBPATH="$LIBPATH:$HERE/lib"
export LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$DEPS/usr"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

CUDNN="$(find_cudnn "$LIBPATH")"
{
  echo "=== bundle"; cat "$HERE/MANIFEST.txt"
  echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "=== nvidia-smi"; nvidia-smi 2>&1
  echo "=== CUDA library folders: ${cuda_dirs[*]:-none found}"
  echo "=== cuDNN: $CUDNN"
  echo "=== ldd"; for b in "$HERE"/bin/*; do echo "--- $(basename "$b")"; ldd "$b" 2>&1 | grep -E "not found|cublas|cudnn|nccl|cudart|openblas" ; done
} >> "$LOG" 2>&1
if grep -q "=> not found" "$LOG"; then say "WARNING: some libraries not found (see log.txt, section ldd)"; fi

B="$HERE/bin"
cd "$HERE/data" 2>/dev/null || cd "$HERE"

step devices 30 check_devices "$B/tools_devices"
if no_cuda="$(grep -m1 "^no CUDA device" "$W/steps/devices.log" 2>/dev/null)"; then
  say "$no_cuda -- every CUDA step below fails"
fi
# The main result first: the four attention x graph modes of one step (gpu_check_args.sh), one
# JSON each. --cuda_graph needs two warm-up steps (the second is the capture, with its check
# against an uncaptured step). The auto modes must get cuDNN where it is installed.
for mode in "${GPT_STEP_MODES[@]}"; do
  name="${mode%%:*}"; read -r -a extra <<< "${mode#*:}"
  check="check_bench_json"; [[ " ${extra[*]} " == *" --attention_impl=auto "* ]] && check="check_auto_step"
  step "$name" "$( [[ $name == gpt_step ]] && echo 120 || echo 60 )" "$check $W/$name.json" "$B/macro_gpt_step" \
    "${GPT_STEP_ARGS[@]}" "${extra[@]}" --benchmark_out="$W/$name.json"
done
step gpt_decode 90 "check_bench_json $W/gpt_decode.json" "$B/macro_gpt_decode" "${GPT_DECODE_ARGS[@]}" \
  --benchmark_out="$W/gpt_decode.json"
step cuda_rule_test 60 check_gtest "$B/tools_bazel_testdata_cuda_rule_test"
for t in "$B"/model_cuda_*test; do
  [[ -e "$t" ]] && step "$(basename "$t")" 120 check_gtest "$t"
done
sanitizer="$(command -v compute-sanitizer || true)"
[[ -z "$sanitizer" && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [[ -n "$sanitizer" ]]; then
  step memcheck_gpt_step 120 check_memcheck "$sanitizer" --tool memcheck --error-exitcode 3 "$B/macro_gpt_step" \
    "${MEMCHECK_ARGS[@]}"
else
  record SKIPPED memcheck_gpt_step 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
fi
step ddp_step_1rank 120 "check_file $W/ddp.json" "$B/macro_ddp_step" "${DDP_STEP_ARGS[@]}" --json_out="$W/ddp.json"
step micro_ceilings 90 "check_bench_json $W/ceilings_bench.json" "$B/micro_ceilings" --benchmark_filter=cuda \
  --ceilings_out="$W/ceilings.json" --benchmark_out="$W/ceilings_bench.json" --benchmark_out_format=json
step micro_matmul 120 "check_bench_json $W/matmul.json" "$B/micro_matmul" \
  --benchmark_filter='cuda/.*/M:(4096|8192)/K:(4096|8192)/N:(4096|8192)/manual_time$|cuda/.*/M:12288/K:768' \
  --benchmark_min_time=0.05 --benchmark_out="$W/matmul.json" --benchmark_out_format=json
step micro_elementwise 90 "check_bench_json $W/elementwise.json" "$B/micro_elementwise" --benchmark_filter='cuda/.*/N:16777216/manual_time$' \
  --benchmark_min_time=0.05 --benchmark_out="$W/elementwise.json" --benchmark_out_format=json
say "result: $n_pass PASS, $n_fail FAIL or TIMEOUT, $n_skip SKIPPED; total $(( $(date +%s) - t0 ))s (deadline ${DEADLINE_S}s)"
pack
size=$(stat -c %s "$RESULTS" 2>/dev/null || echo 0)
# A device call returns files of at most 16 MiB.
if (( size > 16 * 1024 * 1024 )); then say "WARNING: results.tar.gz is $(( size >> 20 )) MiB, over the 16 MiB a device call returns"; fi
rm -rf "$W"
(( n_fail == 0 && n_skip == 0 ))
