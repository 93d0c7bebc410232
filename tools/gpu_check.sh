#!/usr/bin/env bash
# Runs on the GPU machine (no Bazel there), from the bundle tools/gpu_bundle.sh made:
#   bash .gpu/gpu_check.sh OUTDIR
# Unpacks the runtime .debs into /tmp/deps (never into /), finds the machine's cuBLAS and NCCL,
# prints nvidia-smi and ldd of one binary, runs the CUDA tests, the quick micro cases and
# //macro:gpt_step (GPT-2 124M, batch 12, seq 1024, bf16), and writes JSON and summary.txt under
# OUTDIR. Designed to finish in under 8 minutes; each step has its own time limit.
set -uo pipefail
OUT="${1:?usage: gpu_check.sh OUTDIR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
LOG="$OUT/log.txt"; SUMMARY="$OUT/summary.txt"
: > "$LOG"; : > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
t0=$(date +%s)

# --- libraries -----------------------------------------------------------------------------
DEPS=/tmp/deps
mkdir -p "$DEPS"
for deb in "$HERE"/debs/*.deb; do dpkg -x "$deb" "$DEPS"; done
cuda_dirs=()
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -e "$d/libcublas.so.13" || -e "$d/libcublasLt.so.13" || -e "$d/libnccl.so.2" ]] && cuda_dirs+=("$d")
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

{
  echo "=== bundle"; cat "$HERE/MANIFEST.txt"
  echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "=== nvidia-smi"; nvidia-smi 2>&1
  echo "=== CUDA library folders: ${cuda_dirs[*]:-none found}"
  echo "=== ldd"; for b in "$HERE"/bin/*; do echo "--- $(basename "$b")"; ldd "$b" 2>&1 | grep -E "not found|cublas|nccl|cudart|openblas|benchmark" ; done
} >> "$LOG" 2>&1
if grep -q "=> not found" "$LOG"; then say "WARNING: some libraries not found (see log.txt, section ldd)"; fi

# --- steps -----------------------------------------------------------------------------------
# step NAME LIMIT_S CMD...: runs one step with a time limit, output appended to log.txt.
step() {
  local name="$1" limit="$2"; shift 2
  local exe="$1"
  if [[ ! -x "$exe" ]]; then say "SKIP  $name (not in bundle: $(basename "$exe"))"; return; fi
  local s=$(date +%s)
  echo "=== $name: $*" >> "$LOG"
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  local verdict=PASS; [[ $rc -ne 0 ]] && verdict="FAIL(rc=$rc)"; [[ $rc -eq 124 ]] && verdict="TIMEOUT(${limit}s)"
  say "$(printf '%-6s %-28s %4ss' "$verdict" "$name" "$(( $(date +%s) - s ))")"
}
B="$HERE/bin"
cd "$HERE/data" 2>/dev/null || cd "$HERE"

step devices 30 "$B/tools_devices"
step cuda_rule_test 60 "$B/tools_bazel_testdata_cuda_rule_test"
for t in "$B"/model_cuda_*test; do
  [[ -e "$t" ]] && step "$(basename "$t")" 120 "$t"
done
step micro_matmul 120 "$B/micro_matmul" --benchmark_filter='cuda/.*/M:(4096|8192)/K:(4096|8192)/N:(4096|8192)/manual_time$|cuda/.*/M:12288/K:768' \
  --benchmark_min_time=0.05 --benchmark_format=json --benchmark_out="$OUT/matmul.json"
step micro_elementwise 90 "$B/micro_elementwise" --benchmark_filter='cuda/.*/N:16777216/manual_time$' \
  --benchmark_min_time=0.05 --benchmark_out="$OUT/elementwise.json" --benchmark_out_format=json
step micro_ceilings 90 "$B/micro_ceilings" --benchmark_filter=cuda --ceilings_out="$OUT/ceilings.json"
step gpt_step 240 "$B/macro_gpt_step" --device=cuda --dtype=bf16 --batch=12 --seq=1024 \
  --benchmark_out="$OUT/gpt_step.json" --benchmark_out_format=json
step ddp_step_1rank 120 "$B/macro_ddp_step" --device=cuda --dtype=bf16 --batch=12 --seq=1024 --steps=10 --warmup_steps=3 --json_out="$OUT/ddp.json"
if command -v compute-sanitizer >/dev/null; then
  step memcheck_gpt_step 120 compute-sanitizer --tool memcheck --error-exitcode 3 "$B/macro_gpt_step" \
    --device=cuda --preset=test-tiny --batch=2 --seq=32 --warmup_steps=0 --steps=1 --benchmark_min_time=0
fi
say "total $(( $(date +%s) - t0 ))s"
