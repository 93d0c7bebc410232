#!/usr/bin/env bash
# Runs on the GPU machine (no Bazel there), from the bundle tools/gpu/gpu_bundle.sh made:
#   bash .gpu/gpu_check.sh OUTDIR
# Unpacks the runtime .debs into /tmp/deps (never into /), finds the machine's cuBLAS, NCCL and
# cuDNN (the bundle carries none of them; cuDNN is opened at run time, and without it
# --attention_impl=auto runs the attention kernels), prints nvidia-smi and ldd of the binaries,
# then runs the steps in the order of their value, so that a lease cut short still brings back
# what matters most (the argument lists are tools/gpu/gpu_check_args.sh's, sourced; CI runs each
# on the CPU first):
#   1. devices, then //macro:gpt_step (GPT-2 124M, batch 12, seq 1024, bf16, --attention_impl=auto:
#      cuDNN after its self-check): the main result;
#   2. the GEMM micro cases at the model's five GEMM shapes (M = B*T = 12288) and two squares,
#      and the ceilings (micro_matmul, micro_ceilings): the rates that explain the MFU;
#   3. gpt_step with the attention kernels, then the numerics at the real shape: the first warm-up
#      loss of the cuDNN step against the kernels' (same seed, batch and parameters; 1e-3
#      relative, else FAIL), and one attention forward and backward at B=12, T=1024, cuDNN
#      against the kernels (out, dq, dk, dv within the bf16 bound: attention_train_shape);
#   4. the Llama family's step (llama-124m, same shape: RMSNorm, RoPE, SwiGLU, 4 K/V heads);
#      then GPT-2's with --cuda_graph, gpt_decode, the CUDA tests, compute-sanitizer's memcheck of
#      the CUDA op tests, the attention self-check test and a test-mini gpt_step on cuDNN (each
#      allocates its tensors one by one, so memcheck sees an overrun between them), and the
#      elementwise micro cases;
#   5. ddp_step on one rank, last.
#
# OUTDIR holds three files, since a device call returns at most 8: summary.txt (a verdict line
# per step), log.txt (the machine: nvidia-smi, libraries, ldd; then each step's command and the
# last lines of its output) and results.tar.gz (every JSON and each step's whole output,
# steps/NAME.log), packed again after every step so that a run cut short still returns what it
# measured. The work folder is a temporary one outside OUTDIR.
#
# One overall deadline (GPU_CHECK_DEADLINE_S, default 420 s, counted from the start) keeps the
# whole check inside one device command and leaves the 15-minute lease time for a second,
# targeted command on the still-warm machine: a step whose own limit would overrun the deadline
# is not started and is marked SKIPPED. Each step's limit is about twice its expected time
# (EXPECT_S and LIMIT_S below). Verdicts: PASS only when the step ran and did its work;
#   FAIL     non-zero exit, or a run that did nothing: a gtest that skipped (GTEST_SKIP), a
#            benchmark whose cases were skipped (SkipWithError) or not registered (a micro
#            binary registers no CUDA case without a usable device, and says why), no JSON
#            written, no CUDA device; or numbers that disagree (the loss comparison);
#   TIMEOUT  the step's own limit;
#   SKIPPED  not in the bundle, no compute-sanitizer, the deadline, or a wedged GPU: after a step
#            that was abandoned (still running after SIGKILL: stuck in the driver) every later
#            step is SKIPPED at once, "GPU wedged after NAME", and the results are packed.
# An --attention_impl=auto step FAILs too when it ran the kernels on a machine that has cuDNN
# (its JSON context's mlbench_attention_impl; the reason is its mlbench_attention_choice). A GPU
# whose name has no datasheet peak still times the step: its MFU is "n/a", and the step PASSes.
# Each step runs under `timeout -k 15 LIMIT`: a step stuck in the driver that outlives SIGTERM is
# killed 15 s later, and the deadline counts those 15 s.
# Every verdict other than PASS carries its reason; each line says when the step started
# ("at +Ns"). Exit status 0 only when every step passed.
#
# Environment:
#   GPU_CHECK_DEADLINE_S   the overall deadline in seconds (default 420)
#   GPU_CHECK_DEPS         where the .debs are unpacked (default /tmp/deps)
#   GPU_CHECK_DRY_RUN      1: every step is replaced by a sleep of its expected time (the plan's
#                          timing, without a GPU); virtual: the same on a simulated clock that
#                          advances by each step's expected time without waiting (what
#                          tools/gpu/gpu_check_selftest.sh runs). Verdicts are DRYRUN.
#   GPU_CHECK_TEST_WEDGE   a step name: in a dry run, that step stands for one stuck in the driver
#                          (abandoned after its limit + 20 s), for the self-test of the wedge rule.
# tools/gpu/gpu_check_selftest.sh runs this without a GPU: every CUDA step must FAIL or be
# SKIPPED there, never PASS.
set -uo pipefail

# --- the plan: each step's expected seconds on an H200 and its limit (about twice that) -------
# The expected times are estimates (no GPU has run this yet): a process's start (CUDA context,
# cuBLASLt, the model's host-side initialisation), cuDNN's graph builds for a gpt_step that uses
# it, and the timed work at GPT-2 124M, B=12, T=1024 (a few hundred milliseconds of steps). The
# first lease's log.txt prints each step's measured time beside them: correct them from it. A
# model_cuda_* test (3 s each, 12 of them with int8_gemv_cuda_test) is a context's start and small shapes; with the Llama
# step and its two test binaries added, 5 s each left memcheck_gpt_step no room in the dry run.
declare -A EXPECT_S=(
  [devices]=3 [gpt_step]=20 [micro_matmul]=15 [micro_ceilings]=15 [gpt_step_kernels]=15
  [attention_train_shape]=8 [gpt_step_graph]=20 [gpt_step_kernels_graph]=15 [gpt_decode]=15
  [cuda_rule_test]=3 [model_cuda_test]=3 [memcheck_ops]=40 [memcheck_attention]=40
  [memcheck_gpt_step]=60 [micro_elementwise]=10 [ddp_step_1rank]=15 [gpt_step_llama]=20
)
declare -A LIMIT_S=(
  [devices]=30 [gpt_step]=90 [micro_matmul]=45 [micro_ceilings]=45 [gpt_step_kernels]=60
  [attention_train_shape]=30 [gpt_step_graph]=90 [gpt_step_kernels_graph]=60 [gpt_decode]=45
  [cuda_rule_test]=30 [model_cuda_test]=30 [memcheck_ops]=90 [memcheck_attention]=90
  [memcheck_gpt_step]=120 [micro_elementwise]=45 [ddp_step_1rank]=60 [gpt_step_llama]=90
)
# A step's plan entry: its own, else its family's (every model_cuda_*test binary shares one).
plan_of() {  # TABLE NAME
  local -n table="$1"
  local name="$2"
  if [[ -n "${table[$name]+x}" ]]; then echo "${table[$name]}"
  elif [[ "$name" == model_cuda_* ]]; then echo "${table[model_cuda_test]}"
  else echo "${table[default]:-60}"
  fi
}
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

# compute-sanitizer over a gtest binary: its report, then the gtest's own verdict.
check_memcheck_gtest() {
  local why
  why="$(check_memcheck "$1")"
  [[ -z "$why" ]] && why="$(check_gtest "$1")"
  echo "$why"
}
# The first warm-up step's loss in a gpt_step log ("step   1/3   warm-up | loss 10.9461 | ..."),
# or nothing.
first_warmup_loss() {
  sed -n 's/^step \{1,\}1\/[0-9]\{1,\} \{1,\}warm-up \{1,\}| loss \([^ ]*\) .*/\1/p' "$1" 2>/dev/null | head -1
}
# The numerics at the real shape: the first warm-up loss of the cuDNN step (CUDNN_LOG) and of the
# kernels step (KERNELS_LOG), same seed, batch and parameters, must agree within TOLERANCE
# relative (default 1e-3: bf16 attention, the rest of the step identical). Prints nothing when
# they do, else why not.
check_loss_match() {  # CUDNN_LOG KERNELS_LOG [TOLERANCE]
  local a b tol="${3:-1e-3}" num='^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
  a="$(first_warmup_loss "$1")"; b="$(first_warmup_loss "$2")"
  if [[ -z "$a" ]]; then echo "no first warm-up loss in $(basename "$1")"; return; fi
  if [[ -z "$b" ]]; then echo "no first warm-up loss in $(basename "$2")"; return; fi
  if ! [[ "$a" =~ $num && "$b" =~ $num ]]; then
    echo "first warm-up loss $a (cuDNN) vs $b (kernels): not both finite numbers"; return
  fi
  awk -v a="$a" -v b="$b" -v tol="$tol" 'BEGIN {
    d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b
    if (!(d <= tol * s)) printf "first warm-up loss %s (cuDNN) vs %s (kernels): relative difference %.3g > %g\n", a, b, (s > 0 ? d / s : d), tol
  }'
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

# The environment the bundle's binaries run in (sets LIBPATH and exports): the unpacked .debs'
# libraries under DEPS first, then LIBDIRS (the machine's CUDA library folders, the bundle's
# lib/); Open MPI relocated to DEPS (OPAL_PREFIX: its plugins, help texts and orted); and a
# singleton rank (ddp_step without mpirun) that starts its local daemon with the isolated launcher,
# not the rsh one, which needs ssh or rsh on PATH (a machine without them refused the start:
# "agent-not-found"). Plugins whose libraries the machine lacks (InfiniBand, PSM) are left out
# without a word. tools/gpu/bare_root_mpi_check.sh runs ddp_step in this environment in a root
# that holds only the C runtime.
runtime_env() {  # DEPS LIBDIR...
  local deps="$1" d; shift
  LIBPATH="$deps/usr/lib/x86_64-linux-gnu:$deps/usr/lib/x86_64-linux-gnu/openblas-openmp:$deps/lib/x86_64-linux-gnu"
  for d in "$@"; do LIBPATH="$LIBPATH:$d"; done
  export LD_LIBRARY_PATH="$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OPAL_PREFIX="$deps/usr"
  export OMPI_MCA_plm=isolated OMPI_MCA_mca_base_component_show_load_errors=0
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}
# The work folder packed into $RESULTS (a temporary name, then renamed: never half-written).
pack() {
  tar -C "$W" -czf "$RESULTS.tmp" . 2>> "$LOG" && mv -f "$RESULTS.tmp" "$RESULTS"
}
say() { echo "$*" | tee -a "$SUMMARY"; }
# --- running a step ------------------------------------------------------------------------
# (They use the globals set below: t0, DEADLINE_S, KILL_GRACE_S, W, LOG, SUMMARY, RESULTS,
# DRY_RUN, VCLOCK, WEDGED.)
# The check's clock: seconds since the epoch, plus what a virtual dry run has simulated.
clock() { echo $(( $(date +%s) + ${VCLOCK:-0} )); }
record() {  # record VERDICT NAME SECONDS [REASON]; the step started at $started (clock)
  local verdict="$1" name="$2" secs="$3" reason="${4:-}" at
  at=$(( ${started:-$(clock)} - t0 ))
  case "$verdict" in
    PASS) n_pass=$((n_pass + 1)) ;;
    SKIPPED) n_skip=$((n_skip + 1)) ;;
    DRYRUN) n_dry=$((n_dry + 1)) ;;
    *) n_fail=$((n_fail + 1)) ;;
  esac
  say "$(printf '%-8s %-40s %4ss (at +%ss)%s' "$verdict" "$name" "$secs" "$at" "${reason:+  $reason}")"
}
# step NAME CHECK CMD...: runs CMD with the step's limit (LIMIT_S) if the deadline allows it;
# CHECK is a check_* function above, with the file it reads when that is not the step's own
# output ("check_gtest", "check_bench_json FILE"; the step's log is appended), or "-".
step() {
  local name="$1" check="$2"; shift 2
  local exe="$1" limit expect
  limit="$(plan_of LIMIT_S "$name")"; expect="$(plan_of EXPECT_S "$name")"
  local started
  started=$(clock)
  if [[ "$exe" == */* && ! -x "$exe" ]]; then record SKIPPED "$name" 0 "not in the bundle: $(basename "$exe")"; return; fi
  if [[ -n "${WEDGED:-}" ]]; then
    record SKIPPED "$name" 0 "GPU wedged after $WEDGED (it outlived SIGKILL: stuck in the driver); not started"
    return
  fi
  local left=$(( t0 + DEADLINE_S - started ))
  if (( left < limit + KILL_GRACE_S )); then
    record SKIPPED "$name" 0 "would overrun the ${DEADLINE_S}s deadline: its limit is ${limit}s (+${KILL_GRACE_S}s to kill it), ${left}s left"
    return
  fi
  local slog="$W/steps/$name.log"
  echo "=== $name (expected ${expect}s, limit ${limit}s, at +$(( started - t0 ))s): $*" >> "$LOG"
  local rc=0
  if [[ -n "${DRY_RUN:-}" ]]; then
    # The plan's timing only: the step's expected time passes (slept, or on the virtual clock);
    # a step named by GPU_CHECK_TEST_WEDGE is held as long as one stuck in the driver would be.
    local hold="$expect"
    [[ "$name" == "${GPU_CHECK_TEST_WEDGE:-}" ]] && { hold=$(( limit + KILL_GRACE_S + 5 )); rc=-1; }
    if [[ "$DRY_RUN" == virtual ]]; then VCLOCK=$(( ${VCLOCK:-0} + hold )); else sleep "$hold"; fi
    echo "dry run: $* (${hold}s)" > "$slog"
  else
    # In the background, waited for at most limit + grace + 5 s: a process stuck in the driver
    # (uninterruptible) survives even SIGKILL, and `timeout` would wait for it; such a step is
    # abandoned, so the check still ends inside its deadline.
    # (In a subshell whose own stderr is dropped: bash's "Killed" notice for a step that SIGKILL
    # ended would otherwise land in the middle of the summary.)
    ( timeout -k "$KILL_GRACE_S" "$limit" "$@" > "$slog" 2>&1; exit $? ) 2>/dev/null &
    local pid=$! give_up=$(( $(date +%s) + limit + KILL_GRACE_S + 5 ))
    while kill -0 "$pid" 2>/dev/null && (( $(date +%s) < give_up )); do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      disown "$pid" 2>/dev/null
      rc=-1
    else
      wait "$pid"; rc=$?
    fi
  fi
  echo "--- the last 30 lines (all of it: steps/$name.log in results.tar.gz)" >> "$LOG"
  tail -n 30 "$slog" >> "$LOG"
  local secs=$(( $(clock) - started )) why=""
  if (( rc == -1 )); then
    WEDGED="$name"
    record "TIMEOUT" "$name" "$secs" "still running after its ${limit}s limit's SIGTERM and SIGKILL (stuck in the driver?); abandoned; every later step is SKIPPED"
  elif [[ -n "${DRY_RUN:-}" ]]; then
    record DRYRUN "$name" "$secs" "expected ${expect}s, limit ${limit}s"
  else
    if [[ "$check" != "-" ]]; then why="$($check "$slog")"; fi
    if (( rc == 124 || rc == 137 )); then
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
  fi
  pack
}
# A verdict computed from steps that ran (no process of its own): CHECK's reason, if any, is a
# FAIL; a dry run or a wedged GPU records it as such.
judge() {  # judge NAME CHECK ARGS...
  local name="$1" check="$2"; shift 2
  local started why
  started=$(clock)
  if [[ -n "${WEDGED:-}" ]]; then record SKIPPED "$name" 0 "GPU wedged after $WEDGED; nothing to compare"; return; fi
  if [[ -n "${DRY_RUN:-}" ]]; then record DRYRUN "$name" 0 "a comparison of steps that ran"; return; fi
  why="$($check "$@")"
  if [[ -n "$why" ]]; then record FAIL "$name" 0 "$why"; else record PASS "$name" 0; fi
}
# Sourced (tools/gpu/gpu_check_selftest.sh tests the checks and the step runner): the functions only.
if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then return 0; fi

OUT="${1:?usage: gpu_check.sh OUTDIR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
DEADLINE_S="${GPU_CHECK_DEADLINE_S:-420}"
DRY_RUN="${GPU_CHECK_DRY_RUN:-}"
case "$DRY_RUN" in
  "" | 0) DRY_RUN="" ;;
  1 | virtual) ;;
  *) echo "gpu_check: GPU_CHECK_DRY_RUN=$DRY_RUN is invalid: allowed 1 (sleep each step's expected time) or virtual (a simulated clock)" >&2; exit 2 ;;
esac
if ! [[ "$DEADLINE_S" =~ ^[1-9][0-9]*$ ]]; then
  echo "gpu_check: GPU_CHECK_DEADLINE_S=$DEADLINE_S is invalid: a whole number of seconds >= 1" >&2; exit 2
fi
KILL_GRACE_S=15  # timeout -k: SIGKILL this long after a step's SIGTERM
VCLOCK=0; WEDGED=""
t0=$(clock)
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/log.txt"; SUMMARY="$OUT/summary.txt"; RESULTS="$OUT/results.tar.gz"
: > "$LOG"; : > "$SUMMARY"
rm -f "$RESULTS"  # an earlier run's results must not pass for this run's
W="$(mktemp -d /tmp/gpu_check.XXXXXX)"  # JSON and step logs; packed into $RESULTS
mkdir -p "$W/steps"
n_pass=0; n_fail=0; n_skip=0; n_dry=0
# shellcheck source=tools/gpu/gpu_check_args.sh
source "$HERE/gpu_check_args.sh"
[[ -n "$DRY_RUN" ]] && say "DRY RUN ($DRY_RUN): every step is a sleep of its expected time; nothing runs on a GPU"

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
runtime_env "$DEPS" "${cuda_dirs[@]}" "$HERE/lib"

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

# gpt_step in one of gpu_check_args.sh's modes (NAME:EXTRA FLAGS), one JSON each. --cuda_graph
# needs two warm-up steps (the second is the capture, with its check against an uncaptured step).
# The auto modes must get cuDNN where it is installed.
gpt_step_mode() {  # NAME
  local mode extra=() check="check_bench_json"
  for mode in "${GPT_STEP_MODES[@]}"; do
    [[ "${mode%%:*}" == "$1" ]] && read -r -a extra <<< "${mode#*:}"
  done
  [[ " ${extra[*]} " == *" --attention_impl=auto "* ]] && check="check_auto_step"
  step "$1" "$check $W/$1.json" "$B/macro_gpt_step" "${GPT_STEP_ARGS[@]}" "${extra[@]}" --benchmark_out="$W/$1.json"
}
# compute-sanitizer: on PATH, else CUDA's own folder; in a dry run its name stands for it.
sanitizer="$(command -v compute-sanitizer || true)"
[[ -z "$sanitizer" && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
[[ -z "$sanitizer" && -n "$DRY_RUN" ]] && sanitizer=compute-sanitizer
memcheck() {  # NAME CHECK CMD...
  local name="$1" check="$2"; shift 2
  if [[ -z "$sanitizer" ]]; then
    started=$(clock) record SKIPPED "$name" 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
    return
  fi
  step "$name" "$check" "$sanitizer" --tool memcheck --error-exitcode 3 "$@"
}

# 1. The main result, right after the probe.
step devices check_devices "$B/tools_devices"
if no_cuda="$(grep -m1 "^no CUDA device" "$W/steps/devices.log" 2>/dev/null)"; then
  say "$no_cuda -- every CUDA step below fails"
fi
gpt_step_mode gpt_step
# 2. The GEMM rates at the model's five shapes (M = B*T = 12288; K, N of qkv, attproj, fc, fcproj
# and the LM head), two squares, every dtype; then the ceilings.
step micro_matmul "check_bench_json $W/matmul.json" "$B/micro_matmul" \
  --benchmark_filter='cuda/.*/M:(4096|8192)/K:(4096|8192)/N:(4096|8192)/manual_time$|cuda/.*/M:12288/K:(768|3072)/N:[0-9]+/manual_time$' \
  --benchmark_min_time=0.05 --benchmark_out="$W/matmul.json" --benchmark_out_format=json
step micro_ceilings "check_bench_json $W/ceilings_bench.json" "$B/micro_ceilings" --benchmark_filter=cuda \
  --ceilings_out="$W/ceilings.json" --benchmark_out="$W/ceilings_bench.json" --benchmark_out_format=json
# 3. The kernels' step, and the numerics at the real shape against it.
gpt_step_mode gpt_step_kernels
if [[ -z "$DRY_RUN" && "$(json_context_value "$W/gpt_step.json" mlbench_attention_impl 2>/dev/null)" == kernels ]]; then
  started=$(clock) record SKIPPED cudnn_vs_kernels_loss 0 "the auto step ran the kernels ($(json_context_value "$W/gpt_step.json" mlbench_attention_choice)): no cuDNN loss to compare"
else
  judge cudnn_vs_kernels_loss check_loss_match "$W/steps/gpt_step.log" "$W/steps/gpt_step_kernels.log"
fi
step attention_train_shape check_gtest "$B/model_cuda_attention_selfcheck_cuda_test" --gtest_filter='*TrainShape*'
# 4. The Llama family's step (llama-124m) at the same shape: RMSNorm, RoPE, SwiGLU, 4 K/V heads.
gpt_step_mode gpt_step_llama
gpt_step_mode gpt_step_graph
gpt_step_mode gpt_step_kernels_graph
step gpt_decode "check_bench_json $W/gpt_decode.json" "$B/macro_gpt_decode" "${GPT_DECODE_ARGS[@]}" \
  --benchmark_out="$W/gpt_decode.json"
step cuda_rule_test check_gtest "$B/tools_bazel_testdata_cuda_rule_test"
for t in "$B"/model_cuda_*test; do
  [[ -e "$t" ]] || continue
  filter=()  # attention_train_shape ran the self-check's train-shape case already
  [[ "$(basename "$t")" == model_cuda_attention_selfcheck_cuda_test ]] && filter=(--gtest_filter='-*TrainShape*')
  step "$(basename "$t")" check_gtest "$t" "${filter[@]}"
done
# memcheck where it can see: each op test and the self-check allocate their tensors one by one;
# gpt_step at test-mini (head size 32, a shape cuDNN takes) on cuDNN, or on the kernels where
# this machine has no cuDNN (the model is one arena there: memcheck sees only its edges).
memcheck memcheck_ops check_memcheck_gtest "$B/model_cuda_ops_cuda_test"
memcheck memcheck_attention check_memcheck_gtest "$B/model_cuda_attention_selfcheck_cuda_test" --gtest_filter='-*TrainShape*'
memcheck_args=("${MEMCHECK_ARGS[@]}")
if [[ "$CUDNN" == "no libcudnn"* ]]; then memcheck_args=("${memcheck_args[@]/--attention_impl=cudnn/--attention_impl=kernels}"); fi
memcheck memcheck_gpt_step check_memcheck "$B/macro_gpt_step" "${memcheck_args[@]}"
step micro_elementwise "check_bench_json $W/elementwise.json" "$B/micro_elementwise" --benchmark_filter='cuda/.*/N:16777216/manual_time$' \
  --benchmark_min_time=0.05 --benchmark_out="$W/elementwise.json" --benchmark_out_format=json
# 5. The DDP path on one rank (no mpirun), last.
step ddp_step_1rank "check_file $W/ddp.json" "$B/macro_ddp_step" "${DDP_STEP_ARGS[@]}" --json_out="$W/ddp.json"

total=$(( $(clock) - t0 ))
if [[ -n "$DRY_RUN" ]]; then
  say "result: dry run, $n_dry steps started, $n_skip SKIPPED, $n_fail TIMEOUT; total ${total}s (deadline ${DEADLINE_S}s)"
else
  say "result: $n_pass PASS, $n_fail FAIL or TIMEOUT, $n_skip SKIPPED; total ${total}s (deadline ${DEADLINE_S}s)"
fi
pack
size=$(stat -c %s "$RESULTS" 2>/dev/null || echo 0)
# A device call returns files of at most 16 MiB.
if (( size > 16 * 1024 * 1024 )); then say "WARNING: results.tar.gz is $(( size >> 20 )) MiB, over the 16 MiB a device call returns"; fi
rm -rf "$W"
(( n_fail == 0 && n_skip == 0 ))
