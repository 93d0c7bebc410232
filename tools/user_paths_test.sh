#!/usr/bin/env bash
# Path flags resolve against the user's folder (harness/user_path.h). As `bazel run` does, the
# binaries start in another folder (here: the test's runfiles) with BUILD_WORKING_DIRECTORY
# set to the user's; relative paths must land in the user's folder, never next to the binary,
# and each binary prints the absolute path it used:
#   make_tokens --out=train.bin, then gpt_step --data=train.bin (the same file),
#   ceilings --ceilings_out=c.json --benchmark_out=ceil.json, then gpt_step --ceilings=c.json,
#   gpt_step --profile --profile_out=trace.json --benchmark_out=step.json,
#   report --in=step.json --out=report,
#   gpt_decode --benchmark_out=decode.json, ddp_step --json_out=ranks.json --benchmark_out=ddp.json.
# Usage: user_paths_test.sh MAKE_TOKENS GPT_STEP CEILINGS REPORT GPT_DECODE DDP_STEP
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
MAKE_TOKENS="$(abs "$1")" STEP="$(abs "$2")" CEILINGS="$(abs "$3")" REPORT="$(abs "$4")"
DECODE="$(abs "$5")" DDP="$(abs "$6")"
USER_DIR="$TEST_TMPDIR/user folder"  # a space, as in a real home folder
START="$TEST_TMPDIR/start"           # where the binaries start, as bazel's runfiles folder
mkdir -p "$USER_DIR" "$START"
cd "$START" || fail "cd"
export BUILD_WORKING_DIRECTORY="$USER_DIR"
TINY=(--preset=test-tiny --batch=2 --seq=8 --warmup_steps=0 --steps=1 --device=cpu --threads=1)
run() {  # run LOG CMD...: runs CMD, output to LOG; fails the test on a non-zero exit
  local log="$1"; shift
  "$@" >"$TEST_TMPDIR/$log" 2>&1
  local rc=$?
  [[ $rc -eq 0 ]] || { tail -20 "$TEST_TMPDIR/$log"; fail "$(basename "$1") exited $rc"; }
}
says() {  # says LOG TEXT: the output has TEXT
  grep -qF -- "$2" "$TEST_TMPDIR/$1" || { tail -20 "$TEST_TMPDIR/$1"; fail "$1 does not say '$2'"; }
}

run tokens.log "$MAKE_TOKENS" --random=5000 --vocab=60 --out=train.bin
[[ -s "$USER_DIR/train.bin" ]] || fail "make_tokens --out=train.bin did not write into the user's folder"
says tokens.log "$USER_DIR/train.bin"

run ceilings.log "$CEILINGS" --sizes=quick --benchmark_filter='cpu/(fma/avx2|stream_copy)' \
  --ceilings_out=c.json --benchmark_out=ceil.json --benchmark_out_format=json
[[ -s "$USER_DIR/c.json" ]] || fail "ceilings --ceilings_out=c.json not in the user's folder"
[[ -s "$USER_DIR/ceil.json" ]] || fail "ceilings --benchmark_out=ceil.json not in the user's folder"
says ceilings.log "ceilings: --ceilings_out: writing $USER_DIR/c.json"
says ceilings.log "ceilings: --benchmark_out: writing $USER_DIR/ceil.json"

run step.log "$STEP" "${TINY[@]}" --data=train.bin --ceilings=c.json --profile --profile_out=trace.json \
  --benchmark_out=step.json --benchmark_out_format=json
says step.log "gpt_step: --data: reading $USER_DIR/train.bin"
says step.log "gpt_step: --ceilings: reading $USER_DIR/c.json"
says step.log "gpt_step: --profile_out: writing $USER_DIR/trace.json"
says step.log "gpt_step: --benchmark_out: writing $USER_DIR/step.json"
for f in trace.json step.json; do
  [[ -s "$USER_DIR/$f" ]] || fail "gpt_step: $f not in the user's folder"
done
grep -q '"step_times_s"' "$USER_DIR/step.json" || fail "step.json lacks the step times (gpt_step read its own --benchmark_out back)"

run report.log "$REPORT" --in=step.json --in=ceil.json --ceilings=c.json --out=report
[[ -s "$USER_DIR/report/index.html" ]] || fail "report --out=report not in the user's folder"
says report.log "$USER_DIR/report/"

run decode.log "$DECODE" --preset=test-tiny --batch=2 --warmup_steps=0 --steps=1 --device=cpu --threads=1 --prompt=2 --generate=2 --benchmark_out=decode.json \
  --benchmark_out_format=json
[[ -s "$USER_DIR/decode.json" ]] || fail "gpt_decode --benchmark_out=decode.json not in the user's folder"
says decode.log "gpt_decode: --benchmark_out: writing $USER_DIR/decode.json"

# ddp_step as one rank (MPI's singleton start, no mpirun).
run ddp.log "$DDP" "${TINY[@]}" --json_out=ranks.json --benchmark_out=ddp.json
for f in ranks.json ddp.json; do
  [[ -s "$USER_DIR/$f" ]] || fail "ddp_step: $f not in the user's folder"
  says ddp.log "$USER_DIR/$f"
done

# Nothing was written where the binaries started.
leftover="$(find "$START" -mindepth 1 | head -5)"
[[ -z "$leftover" ]] || fail "files written where the binaries started: $leftover"

# Without BUILD_WORKING_DIRECTORY (a binary run by hand): the working directory, absolute.
unset BUILD_WORKING_DIRECTORY
run tokens2.log "$MAKE_TOKENS" --random=100 --out=here.bin
[[ -s "$START/here.bin" ]] || fail "without bazel run, --out=here.bin is not in the working directory"
says tokens2.log "$START/here.bin"
echo "PASS"
