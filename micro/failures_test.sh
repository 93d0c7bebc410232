#!/usr/bin/env bash
# The micro binaries never exit 0 on a broken measurement (harness/benchmark_main.h):
#  - a filter that selects nothing, or is not a valid regex: exit 2, naming the filter;
#  - a wrong result (sgemm replaced by one that writes 12345, through LD_PRELOAD): exit 2,
#    naming the case and the failed check;
#  - CUDA cases on a machine without a device: not registered (none listed; one line on stderr
#    says how many and why); a filter selecting only them: exit 2 with that reason.
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
out="$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$BROKEN" "$MATMUL" --benchmark_filter='BM_Matmul/cpu/[a-z_]*/fp32/M:256/K:256/N:256/' \
  --benchmark_min_time=0.01 2>&1)"; rc=$?
[[ $rc -eq 2 ]] || { echo "$out" | tail; fail "matmul with a broken sgemm exited $rc, expected 2"; }
[[ "$out" == *"case(s) failed"* && "$out" == *"BM_Matmul/cpu/"* ]] || { echo "$out" | tail; fail "no failure message"; }
echo "ok: broken sgemm -> exit 2: $(grep -m1 'BM_Matmul/cpu/.*:' <<<"$out" | tail -1)"
# The same binary is fine without it: the fixture, not the binary, broke the result.
"$MATMUL" --benchmark_filter='BM_Matmul/cpu/[a-z_]*/fp32/M:256/K:256/N:256/' --benchmark_min_time=0.01 >/dev/null 2>&1 \
  || fail "matmul without the broken sgemm failed"
# Without a usable CUDA device the CUDA cases are not registered: the list has none, stderr says
# in one line how many were left out and why, and a filter that asks only for them fails with
# that reason (so a GPU machine whose device is broken never passes a CUDA-only run).
if ! nvidia-smi >/dev/null 2>&1; then
  for bin in "$MATMUL" "$ELEMENTWISE" "$CEILINGS"; do
    name="$(basename "$bin")"
    out="$("$bin" --benchmark_list_tests 2>"$TEST_TMPDIR/err.txt")"; rc=$?
    err="$(cat "$TEST_TMPDIR/err.txt")"
    [[ $rc -eq 0 ]] || { echo "$err"; fail "$name --benchmark_list_tests exited $rc"; }
    [[ -n "$out" ]] || fail "$name lists no case at all"
    ! grep -qi "cuda" <<<"$out" || fail "$name lists a CUDA case without a device: $(grep -i -m1 cuda <<<"$out")"
    [[ $(grep -c "CUDA case(s) not registered: no CUDA device: ." <<<"$err") -eq 1 ]] \
      || { echo "$err"; fail "$name: stderr does not say once why the CUDA cases were left out"; }
    echo "ok: $name lists $(wc -l <<<"$out") case(s), none CUDA: $(grep -m1 'not registered' <<<"$err")"
  done
  expect 2 "CUDA case(s) not registered: no CUDA device" "$MATMUL" --benchmark_filter='BM_Matmul/cuda/fp32/M:256/'
  expect 2 "CUDA case(s) not registered: no CUDA device" "$ELEMENTWISE" --benchmark_filter=cuda
  expect 2 "CUDA case(s) not registered: no CUDA device" "$CEILINGS" --benchmark_filter=cuda
fi
echo "PASS"
