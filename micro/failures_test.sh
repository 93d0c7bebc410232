#!/usr/bin/env bash
# The micro binaries never exit 0 on a broken measurement (harness/benchmark_main.h):
#  - a filter that selects nothing, or is not a valid regex: exit 2, naming the filter;
#  - a wrong result (sgemm replaced by one that writes 12345, through LD_PRELOAD): exit 2,
#    naming the case and the failed check;
#  - CUDA cases on a machine without a device: skipped, exit 0.
# Usage: failures_test.sh MATMUL ELEMENTWISE CEILINGS BROKEN_SGEMM_SO
set -uo pipefail
MATMUL="$1" ELEMENTWISE="$2" CEILINGS="$3" BROKEN="$(cd "$(dirname "$4")" && pwd)/$(basename "$4")"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect CODE PHRASE CMD...
  local code="$1" phrase="$2"; shift 2
  local out rc
  out="$("$@" --benchmark_min_time=0.01 2>&1)"; rc=$?
  [[ $rc -eq $code ]] || { echo "$out" | tail -20; fail "$* exited $rc, expected $code"; }
  [[ "$out" == *"$phrase"* ]] || { echo "$out" | tail -20; fail "$* did not say '$phrase'"; }
  echo "ok: exit $rc, '$phrase': $(basename "$1") ${*:2}"
}
for bin in "$MATMUL" "$ELEMENTWISE" "$CEILINGS"; do
  expect 1 "unrecognized" "$bin" --bogus_flag=1
  expect 2 "selects no case" "$bin" --benchmark_filter=matches_nothing_at_all
  expect 2 "selects no case" "$bin" '--benchmark_filter=BM_('
done
# A wrong sgemm: the fp32 CPU case fails its check and the binary says so. (Under --config=asan
# the preloaded library comes before ASan's runtime, which ASan refuses unless told not to check.)
out="$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$BROKEN" "$MATMUL" --benchmark_filter='BM_Matmul/cpu/.*fp32/M:256/K:256/N:256/' \
  --benchmark_min_time=0.01 2>&1)"; rc=$?
[[ $rc -eq 2 ]] || { echo "$out" | tail; fail "matmul with a broken sgemm exited $rc, expected 2"; }
[[ "$out" == *"case(s) failed"* && "$out" == *"BM_Matmul/cpu/"* ]] || { echo "$out" | tail; fail "no failure message"; }
echo "ok: broken sgemm -> exit 2: $(grep -m1 'BM_Matmul/cpu/.*:' <<<"$out" | tail -1)"
# The same binary is fine without it: the fixture, not the binary, broke the result.
"$MATMUL" --benchmark_filter='BM_Matmul/cpu/.*fp32/M:256/K:256/N:256/' --benchmark_min_time=0.01 >/dev/null 2>&1 \
  || fail "matmul without the broken sgemm failed"
# CUDA cases without a device are skips, not failures.
if ! nvidia-smi >/dev/null 2>&1; then
  expect 0 "skipped as not applicable" "$MATMUL" --benchmark_filter='BM_Matmul/cuda/fp32/M:256/'
fi
echo "PASS"
