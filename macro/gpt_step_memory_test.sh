#!/usr/bin/env bash
# gpt_step's host-memory plan (macro/step_memory.h) under an address-space limit (`ulimit -v`), at
# three shapes, with the real start-up (the GEMM choice measured at the step's shapes and the
# STREAM triad: what a default run allocates before its steps):
#   1. under a limit too small for the run, it is refused before the model is built, with the plan
#      ("needs N (model ..., start-up ..., runtime ...)") and the room ("M already mapped");
#   2. with the room the plan asks for (the limit = M + N, plus 1% for the message's rounding) the
#      run completes: the plan is an upper bound of what the run maps;
#   3. with 10% less it is refused up front (exit 2, no abort).
# Before the plan counted the start-up and the runtime, gpt2 at B=3, T=1024 passed the check under
# `ulimit -v 8000000` (6.50 GB needed of 6.94) and aborted 35 s later allocating 618 MB (exit 134).
set -u
STEP="$1"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

# "7.62 GB" / "765.9 MB" / "12.0 kB" -> KiB (for ulimit -v), rounded up.
kib() {
  awk -v n="$1" -v u="$2" 'BEGIN { m = (u == "GB") ? 1e9 : (u == "MB") ? 1e6 : (u == "kB") ? 1e3 : 1; printf "%d\n", n * m / 1024 + 1 }'
}

check_shape() {  # NAME FLAGS...
  local name="$1"; shift
  local args=("$@" --device=cpu --threads=2 --warmup_steps=0 --steps=1 --benchmark_min_time=0)
  # 1. A limit far too small for the run: refused, with the plan and the room.
  (ulimit -v 1600000; "$STEP" "${args[@]}" >"$TMP/$name.small.txt" 2>&1)
  local rc=$?
  [[ $rc -eq 2 ]] && grep -q "not enough host memory" "$TMP/$name.small.txt" \
    || { tail -5 "$TMP/$name.small.txt"; fail "$name under a 1.6 GB limit: exit $rc, expected a refusal (2)"; }
  local need mapped
  need=($(sed -n 's/.*: needs \([0-9.]*\) \([kMG]*B\) (model .*/\1 \2/p' "$TMP/$name.small.txt"))
  mapped=($(sed -n 's/.* less \([0-9.]*\) \([kMG]*B\) already mapped.*/\1 \2/p' "$TMP/$name.small.txt"))
  [[ ${#need[@]} -eq 2 && ${#mapped[@]} -eq 2 ]] \
    || { cat "$TMP/$name.small.txt"; fail "$name: no 'needs N (model ...' and 'M already mapped' in the refusal"; }
  grep -q "start-up [0-9.]* [kMG]B (.*), runtime [0-9.]* [kMG]B touched" "$TMP/$name.small.txt" \
    || fail "$name: the plan does not name its start-up and runtime parts"
  local need_kib mapped_kib
  need_kib=$(kib "${need[@]}"); mapped_kib=$(kib "${mapped[@]}")
  # 2. The room the plan asks for: the run completes.
  local enough=$(( mapped_kib + need_kib + need_kib / 100 ))
  (ulimit -v "$enough"; "$STEP" "${args[@]}" >"$TMP/$name.enough.txt" 2>&1)
  rc=$?
  [[ $rc -eq 0 ]] || { tail -5 "$TMP/$name.enough.txt"; fail "$name: needs ${need[*]} + ${mapped[*]} mapped, but under ulimit -v $enough it exited $rc"; }
  grep -q "== summary" "$TMP/$name.enough.txt" || fail "$name: no summary under ulimit -v $enough"
  # 3. 10% less: refused before the model is built.
  local short=$(( mapped_kib + need_kib * 9 / 10 ))
  (ulimit -v "$short"; "$STEP" "${args[@]}" >"$TMP/$name.short.txt" 2>&1)
  rc=$?
  [[ $rc -eq 2 ]] && grep -q "not enough host memory" "$TMP/$name.short.txt" \
    || { tail -5 "$TMP/$name.short.txt"; fail "$name under ulimit -v $short (10% short): exit $rc, expected a refusal (2)"; }
  echo "$name: needs ${need[*]} beside ${mapped[*]} mapped; ran under ulimit -v $enough KiB, refused under $short"
}

check_shape mini --preset=test-mini --batch=4 --seq=64
check_shape mini_long --preset=test-mini --batch=16 --seq=256
check_shape gpt2 --preset=gpt2 --batch=1 --seq=64
# 4. The summary's memory ledger: gpt2's measured peak resident set (VmHWM) within 10% of the
# predicted one (the plan's touched total: the model's buffers dominate it at this shape).
ledger=$(grep "^  peak .* VmHWM, [-+][0-9.]*% against predicted" "$TMP/gpt2.enough.txt") \
  || { grep -A10 "^memory ledger" "$TMP/gpt2.enough.txt"; fail "gpt2: no ledger line with the measured peak"; }
pct=$(sed -n 's/.*VmHWM, \([-+][0-9.]*\)% against predicted.*/\1/p' <<<"$ledger")
awk -v p="$pct" 'BEGIN { exit !(p <= 10 && p >= -10) }' || fail "gpt2: the measured peak is $pct% off the predicted: $ledger"
echo "gpt2 ledger: $ledger"
echo PASS
