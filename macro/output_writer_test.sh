#!/usr/bin/env bash
# End to end: what the project's one output writer (harness/atomic_file.h) does with devices,
# a full disk and Ctrl-C, through real binaries. Device cases use private mknod nodes in this
# test's folder (1,3 a null device, 1,7 a full one), never the machine's /dev files.
#  1. make_tokens --out= a null device: exit 0, still a character device; a full device: exit 2
#     naming the path and "No space left on device", no "wrote" line.
#  2. gpt_step and matmul --benchmark_out= and gate --summary= a full device: exit 2 naming the
#     path; a null device: exit 0, still a device.
#  3. SIGINT and SIGTERM in the middle of a gpt_step run: exit status 130 / 143, the previous
#     --benchmark_out file byte for byte as it was, no temporary file left.
#  4. The BENCHMARK_OUT environment variable is taken over like the flag: a relative path lands
#     in the user's folder, with gpt_step's step times.
set -u
MAKE_TOKENS="$1"; STEP="$2"; MATMUL="$3"; FIXTURE="$4"; GATE="$5"
TMP="$(mktemp -d "${TEST_TMPDIR:-/tmp}/output_writer.XXXXXX")"
fail() { echo "FAIL: $*"; exit 1; }
TINY=(--preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=4 --device=cpu --threads=1 --peak_flops=1e12)

is_char() { [ -c "$1" ] && [ ! -L "$1" ]; }
if ! mknod "$TMP/null" c 1 3 2>/dev/null || ! mknod "$TMP/full" c 1 7 2>/dev/null \
  || ! : >"$TMP/null" 2>/dev/null; then
  echo "SKIP the device cases: cannot make or open device nodes here (not root, or a nodev mount)"
  DEVICES=0
else
  DEVICES=1
fi

if [ "$DEVICES" = 1 ]; then
  echo "== 1. make_tokens onto a null and a full device"
  "$MAKE_TOKENS" --random=1000 --out="$TMP/null" >"$TMP/mt_null.log" 2>&1 \
    || { cat "$TMP/mt_null.log"; fail "make_tokens --out=<null device> exited non-zero"; }
  is_char "$TMP/null" || fail "make_tokens replaced the null device: $(ls -l "$TMP/null")"
  "$MAKE_TOKENS" --random=1000 --out="$TMP/full" >"$TMP/mt_full.log" 2>&1
  rc=$?
  [ "$rc" = 2 ] || { cat "$TMP/mt_full.log"; fail "make_tokens --out=<full device>: exit $rc, want 2"; }
  grep -q "cannot write '$TMP/full': No space left on device" "$TMP/mt_full.log" \
    || { cat "$TMP/mt_full.log"; fail "the full-device error does not name the path and ENOSPC"; }
  ! grep -q "^wrote" "$TMP/mt_full.log" || fail "make_tokens said 'wrote' after a failed write"
  is_char "$TMP/full" || fail "make_tokens replaced the full device"

  echo "== 2. --benchmark_out onto a full and a null device (gpt_step, matmul)"
  start=$SECONDS
  "$STEP" "${TINY[@]}" --benchmark_out="$TMP/full" >"$TMP/step_full.log" 2>&1
  rc=$?
  [ "$rc" = 2 ] || { cat "$TMP/step_full.log"; fail "gpt_step --benchmark_out=<full device>: exit $rc, want 2"; }
  grep -q "gpt_step: error: --benchmark_out: cannot write '$TMP/full': No space left on device" "$TMP/step_full.log" \
    || { cat "$TMP/step_full.log"; fail "gpt_step's full-device error"; }
  [ $((SECONDS - start)) -lt 30 ] || fail "gpt_step on a full device took $((SECONDS - start)) s"
  is_char "$TMP/full" || fail "gpt_step replaced the full device"
  "$STEP" "${TINY[@]}" --benchmark_out="$TMP/null" >"$TMP/step_null.log" 2>&1 \
    || { cat "$TMP/step_null.log"; fail "gpt_step --benchmark_out=<null device> exited non-zero"; }
  is_char "$TMP/null" || fail "gpt_step replaced the null device"
  python3 "$FIXTURE" "$TMP/ceilings.json" || fail "fixture_ceilings.py"
  "$MATMUL" --sizes=quick --benchmark_filter='cpu/onednn/fp32/M:64/K:64/N:64/' --ceilings="$TMP/ceilings.json" \
    --benchmark_out="$TMP/full" >"$TMP/mm_full.log" 2>&1
  rc=$?
  [ "$rc" = 2 ] || { cat "$TMP/mm_full.log"; fail "matmul --benchmark_out=<full device>: exit $rc, want 2"; }
  grep -q "cannot write '$TMP/full': No space left on device" "$TMP/mm_full.log" \
    || { cat "$TMP/mm_full.log"; fail "matmul's full-device error"; }
  is_char "$TMP/full" || fail "matmul replaced the full device"

  "$STEP" "${TINY[@]}" --benchmark_out="$TMP/step.json" >"$TMP/step.log" 2>&1 \
    || { cat "$TMP/step.log"; fail "gpt_step --benchmark_out=<file> exited non-zero"; }
  "$GATE" --current="$TMP/step.json" --against="$TMP/step.json" --summary="$TMP/full" >"$TMP/gate_full.log" 2>&1
  rc=$?
  [ "$rc" = 2 ] || { cat "$TMP/gate_full.log"; fail "gate --summary=<full device>: exit $rc, want 2"; }
  grep -q "gate: error: --summary: cannot write '$TMP/full': No space left on device" "$TMP/gate_full.log" \
    || { cat "$TMP/gate_full.log"; fail "gate's full-device error"; }
  ! grep -q "summary written" "$TMP/gate_full.log" || fail "gate said 'summary written' after a failed write"
  "$GATE" --current="$TMP/step.json" --against="$TMP/step.json" --summary="$TMP/null" >"$TMP/gate_null.log" 2>&1 \
    || { cat "$TMP/gate_null.log"; fail "gate --summary=<null device> exited non-zero"; }
  is_char "$TMP/null" || fail "gate replaced the null device"
fi

echo "== 3. SIGINT and SIGTERM mid-run leave the previous --benchmark_out file as it was"
set -m  # background jobs get SIGINT (a shell without job control starts them with it ignored)
for sig in INT TERM; do
  want=$([ "$sig" = INT ] && echo 130 || echo 143)
  dir="$TMP/sig_$sig"
  mkdir -p "$dir"
  printf '{"previous": "run", "benchmarks": []}\n' >"$dir/out.json"
  cp "$dir/out.json" "$dir/before.json"
  "$STEP" --preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=1000000 --device=cpu --threads=1 \
    --peak_flops=1e12 --benchmark_out="$dir/out.json" >"$dir/log" 2>&1 &
  pid=$!
  started=0
  for _ in $(seq 1 600); do  # up to 60 s for the first timed step
    if grep -q " timed " "$dir/log"; then started=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ "$started" = 1 ] || { kill -KILL "$pid" 2>/dev/null; cat "$dir/log"; fail "SIG$sig: gpt_step never started stepping"; }
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" = "$want" ] || { tail -5 "$dir/log"; fail "SIG$sig: exit status $rc, want $want"; }
  cmp -s "$dir/out.json" "$dir/before.json" || fail "SIG$sig: the previous --benchmark_out file changed: $(head -c 200 "$dir/out.json")"
  left=$(ls "$dir" | grep -v -x -e out.json -e before.json -e log)
  [ -z "$left" ] || fail "SIG$sig: files left behind: $left"
done
set +m

echo "== 4. BENCHMARK_OUT (environment) like --benchmark_out"
mkdir -p "$TMP/user"
BUILD_WORKING_DIRECTORY="$TMP/user" BENCHMARK_OUT=env.json "$STEP" "${TINY[@]}" >"$TMP/env.log" 2>&1 \
  || { cat "$TMP/env.log"; fail "gpt_step with BENCHMARK_OUT exited non-zero"; }
grep -q '"step_times_s"' "$TMP/user/env.json" || fail "BENCHMARK_OUT=env.json: no step times in $TMP/user/env.json"
[ ! -e env.json ] || fail "BENCHMARK_OUT=env.json landed in the working directory, not the user's folder"

echo "PASS"
