#!/usr/bin/env bash
# End-to-end checks of //macro:decode_accuracy on test-mini and llama-tiny (CPU, one thread):
#  - fp32 against fp32: every field printed, 100% agreement, a logit difference of 0, the same
#    perplexity, PASS and exit 0;
#  - int8's rounding (int8_in_fp32) on llama-tiny: a difference > 0, the verdict lines agree with
#    the exit status; with --min_agreement=1 (it flips some steps) FAIL and exit 1;
#  - a token file from make_tokens (--data): the stream and prompts read from it;
#  - bad flags exit 2 naming the flag (a gpt_step flag it does not use too), an unknown flag exits
#    1, --help exits 0 listing its own and the shared flags but not the train-step ones.
set -u
ACC="$1"; MAKE_TOKENS="$2"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
SMALL=(--threads=1 --prompts=3 --prompt_tokens=4 --generate=12 --stream_tokens=40)

# 1. fp32 against fp32 on test-mini.
"$ACC" --preset=test-mini --weights=fp32 "${SMALL[@]}" >"$TMP/fp32.txt" 2>&1; rc=$?
cat "$TMP/fp32.txt"
[[ $rc -eq 0 ]] || fail "fp32 against fp32 exited $rc"
for pat in "^decode_accuracy: test-mini: .*candidate --weights=fp32 against fp32" \
           "^agreement     100.00% (36 of 36 steps: 3 prompts x 12 generated tokens, teacher-forced" \
           "^logit diff    max 0, mean 0, RMS 0 " "^margins       fp32's top-1 margin .* min .* median " \
           "^fragile       0 of 36 steps" "^perplexity    fp32 \([0-9.]*\), candidate \1: +0.0000%  within 2%: PASS" \
           "39 next-token predictions of a 40-token stream, fed token by token through Step in 1 window of at most 39" \
           "^result        PASS"; do
  grep -q "$pat" "$TMP/fp32.txt" || fail "fp32 run has no '$pat'"
done

# 2. int8's rounding on llama-tiny (block 16: three windows of the stream): differences > 0.
"$ACC" --preset=llama-tiny --weights=int8_in_fp32 --threads=1 --prompts=64 --prompt_tokens=4 --generate=13 \
  --stream_tokens=40 >"$TMP/int8.txt" 2>&1; rc=$?
cat "$TMP/int8.txt"
grep -q "in 3 windows of at most 16 positions" "$TMP/int8.txt" || fail "llama-tiny's stream is not in 3 windows of 16"
grep -Eq "^logit diff    max [0-9.]+e-0[0-9]|^logit diff    max 0\.0*[1-9]" "$TMP/int8.txt" || fail "int8: no logit difference"
if grep -q "^result        PASS" "$TMP/int8.txt"; then [[ $rc -eq 0 ]] || fail "PASS but exit $rc"
else [[ $rc -eq 1 ]] || fail "FAIL but exit $rc"; fi
flips=$(sed -n 's/^agreement     [0-9.]*% (\([0-9]*\) of \([0-9]*\) steps.*/\2 - \1/p' "$TMP/int8.txt")
[[ -n "$flips" ]] && (( flips > 0 )) || fail "llama-tiny int8 flipped no step ($flips): the FAIL check below needs one"
"$ACC" --preset=llama-tiny --weights=int8_in_fp32 --threads=1 --prompts=64 --prompt_tokens=4 --generate=13 \
  --stream_tokens=40 --min_agreement=1 >"$TMP/strict.txt" 2>&1; rc=$?
[[ $rc -eq 1 ]] || { cat "$TMP/strict.txt"; fail "--min_agreement=1 with flips exited $rc, expected 1"; }
grep -q ">= 100%: FAIL" "$TMP/strict.txt" || fail "no agreement FAIL line"
grep -q "^result        FAIL" "$TMP/strict.txt" || fail "no result FAIL line"

# 3. A token file: 40 stream tokens and 3 x 4 prompt tokens from it.
"$MAKE_TOKENS" --random=60 --vocab=1000 --seed=3 --out="$TMP/val.bin" >/dev/null 2>&1 || fail "make_tokens"
"$ACC" --preset=test-mini --weights=bf16_in_fp32 "${SMALL[@]}" --data="$TMP/val.bin" >"$TMP/data.txt" 2>&1; rc=$?
cat "$TMP/data.txt"
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "--data run exited $rc"
grep -q "the stream its first 40 tokens, the prompts the 12 after them" "$TMP/data.txt" || fail "--data not read"

# 4. Bad flags: exit 2 naming the flag; an unknown flag 1; --help 0.
bad() {  # PHRASE ARGS...
  local phrase="$1"; shift
  "$ACC" --preset=test-tiny "$@" >"$TMP/bad.txt" 2>&1; local rc=$?
  [[ $rc -eq 2 ]] || { cat "$TMP/bad.txt"; fail "$* exited $rc, expected 2"; }
  grep -qF -- "$phrase" "$TMP/bad.txt" || { cat "$TMP/bad.txt"; fail "$*: the error does not say '$phrase'"; }
}
bad "--weights: 'int4' is not one of fp32, bf16, int8, bf16_in_fp32, int8_in_fp32" --weights=int4
bad "--prompts: 0 is out of range; allowed: 1 to 64" --prompts=0
bad "--prompts: 65 is out of range" --prompts=65
bad "--generate: 0: give >= 1" --generate=0
bad "--stream_tokens: 1: give >= 2" --stream_tokens=1
bad "--generate: --prompt_tokens=10 + --generate=10 - 1 positions exceed the block size 16" --prompt_tokens=10 --generate=10
bad "--min_agreement: 0 is not a share in (0, 1]" --min_agreement=0
bad "--max_perplexity_diff: nan is not a share" --max_perplexity_diff=nan
bad "--batch: a flag of gpt_step that decode_accuracy does not use" --batch=4
bad "--preset: 'nope' is unknown" --preset=nope
bad "missing.bin' does not exist or is not a readable file" --data=missing.bin
bad "holds 60 tokens; 544 are needed" --data="$TMP/val.bin" --weights=fp32 --generate=4 --prompt_tokens=4
"$ACC" --no_such_flag >/dev/null 2>&1; rc=$?
[[ $rc -eq 1 ]] || fail "an unknown flag exited $rc, expected 1"
"$ACC" --help >"$TMP/help.txt" 2>&1; rc=$?
[[ $rc -eq 0 ]] || fail "--help exited $rc"
for f in --weights --prompts --prompt_tokens --generate --stream_tokens --min_agreement --max_perplexity_diff \
         --preset --seed --threads --data; do
  grep -q -- "  $f " "$TMP/help.txt" || fail "--help does not list $f"
done
for f in --lr --batch --steps --device; do
  ! grep -q -- "  $f " "$TMP/help.txt" || fail "--help lists gpt_step's $f"
done
echo PASS
