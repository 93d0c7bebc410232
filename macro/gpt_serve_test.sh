#!/usr/bin/env bash
# End-to-end checks of //macro:gpt_serve on test-tiny and test-mini (CPU), a few requests each:
#  - the --out JSON is consistent: every request finished with its output length in tokens,
#    TTFT >= queue >= 0, TTFT and TPOT as the times say, decode batches <= max_batch and their
#    rows sum to the tokens after each request's first, steps in time order without overlap;
#    the summary's figures recomputed from the per-request ones;
#  - the summary lines, the limits' PASS/FAIL, --compare_serial's ratio, --find_max_rate's end;
#  - bad flags exit 2 naming the flag, an unknown flag exits 1, --help exits 0.
set -u
SERVE="$1"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
TINY=(--preset=test-tiny --threads=1 --progress_s=0)

# 1. A Poisson load on test-mini, 4 slots, with limits a 2-core machine meets and the serial run.
"$SERVE" --preset=test-mini --threads=1 --progress_s=0 --requests=16 --rate=40 --max_batch=4 --prompt=3:24 \
  --generate=1:12 --seed=5 --ttft_limit_ms=60000 --tpot_limit_ms=1e-6 --compare_serial --out="$TMP/run.json" \
  >"$TMP/log.txt" 2>&1 || { cat "$TMP/log.txt"; fail "test-mini run exited non-zero"; }
for pat in "^TTFT  " "^TPOT  " "^queue " "^prefill " "^throughput  " "decode batch sizes (steps): 1:" \
           "TTFT p99 .* <= limit 60000 ms: PASS" "TPOT p99 .* > limit 1e-06 ms: FAIL" \
           "^batched .* output tokens/s: .*x the serial" "wrote $TMP/run.json"; do
  grep -q -- "$pat" "$TMP/log.txt" || { cat "$TMP/log.txt"; fail "log has no '$pat'"; }
done
python3 - "$TMP/run.json" 16 4 <<'PY' || { cat "$TMP/log.txt"; fail "JSON check"; }
import json, math, sys
doc = json.load(open(sys.argv[1]))
n, max_batch = int(sys.argv[2]), int(sys.argv[3])
run = doc["run"]
reqs, steps, summ = run["requests"], run["steps"], run["summary"]
assert len(reqs) == n, len(reqs)
assert doc["options"]["max_batch"] == max_batch
after_first = 0
for r in reqs:
    assert r["tokens"] == r["output"], r
    assert 3 <= r["prompt"] <= 24 and 1 <= r["output"] <= 12, r
    assert 0 <= r["slot"] < max_batch, r
    assert r["queue_s"] >= 0 and r["ttft_s"] >= r["queue_s"], r
    assert r["finish_s"] >= r["arrival_s"] + r["ttft_s"] - 1e-9, r
    if r["output"] > 1:
        tpot = (r["finish_s"] - r["arrival_s"] - r["ttft_s"]) / (r["output"] - 1)
        assert math.isclose(r["tpot_s"], tpot, rel_tol=1e-6, abs_tol=1e-9), (r, tpot)
    else:
        assert r["tpot_s"] is None, r
    after_first += r["output"] - 1
end, rows, prefills = 0.0, 0, 0
for s in steps:
    assert s["start_s"] >= end - 1e-9, ("overlap", s)
    end = s["start_s"] + s["duration_s"]
    if s["kind"] == "decode":
        assert 1 <= s["batch"] <= max_batch, s
        rows += s["batch"]
    else:
        assert s["kind"] == "prefill" and s["batch"] == 1, s
        prefills += 1
assert rows == after_first, (rows, after_first)
assert prefills == n
assert summ["finished"] == n and summ["output_tokens"] == sum(r["output"] for r in reqs)
assert math.isclose(summ["output_tokens_per_s"], summ["output_tokens"] / summ["duration_s"], rel_tol=1e-9)
assert sum(summ["decode_batch_histogram"]) == summ["decode_steps"]
# numpy's linear percentile of the TTFTs, in ms.
v = sorted(r["ttft_s"] * 1e3 for r in reqs)
pos = 0.99 * (len(v) - 1); lo = int(pos); hi = min(lo + 1, len(v) - 1)
assert math.isclose(summ["ttft_ms"]["p99"], v[lo] + (pos - lo) * (v[hi] - v[lo]), rel_tol=1e-9)
assert doc["serial"]["finished"] == n
assert math.isclose(doc["batched_over_serial"], summ["output_tokens_per_s"] / doc["serial"]["output_tokens_per_s"])
PY

# 2. test-tiny, all at t=0 (a saturating load): the batch fills to max_batch; no --out.
"$SERVE" "${TINY[@]}" --requests=10 --max_batch=3 --prompt=2:6 --generate=4 >"$TMP/tiny.txt" 2>&1 \
  || { cat "$TMP/tiny.txt"; fail "test-tiny run exited non-zero"; }
grep -q "10 of 10 requests, 40 tokens" "$TMP/tiny.txt" || { cat "$TMP/tiny.txt"; fail "tiny: not 10 requests of 4 tokens"; }
grep -q "decode batch sizes (steps):.* 3:[1-9]" "$TMP/tiny.txt" || { cat "$TMP/tiny.txt"; fail "tiny: no batch of 3"; }

# 3. --find_max_rate on test-tiny: every rate passes a generous limit, so the high bound is found.
"$SERVE" "${TINY[@]}" --requests=6 --max_batch=2 --prompt=2:4 --generate=2:3 --find_max_rate \
  --ttft_limit_ms=60000 --find_range=1:1000 --find_steps=2 --out="$TMP/find.json" >"$TMP/find.txt" 2>&1 \
  || { cat "$TMP/find.txt"; fail "find_max_rate exited non-zero"; }
grep -q "the highest rate found that meets the limits: 1000 requests/s (the high bound" "$TMP/find.txt" \
  || { cat "$TMP/find.txt"; fail "find_max_rate did not end with the rate"; }
python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['find_max_rate']; assert f['found'] and len(f['trials'])==2, f" \
  "$TMP/find.json" || fail "find JSON"

# 4. Bad flags: exit 2 naming the flag; an unknown flag 1; --help 0.
expect() {  # expect CODE PHRASE ARGS...
  local code="$1" phrase="$2"; shift 2
  "$SERVE" "$@" >"$TMP/bad.txt" 2>&1; local rc=$?
  [[ $rc -eq $code ]] || { cat "$TMP/bad.txt"; fail "$* exited $rc, expected $code"; }
  grep -qF -- "$phrase" "$TMP/bad.txt" || { cat "$TMP/bad.txt"; fail "$*: no '$phrase'"; }
}
expect 2 "--device: cuda: gpt_serve runs on the CPU only" --device=cuda
expect 2 "--rate=0: not a rate" --rate=0
expect 2 "--prompt=0:4: 0 is below 1" --prompt=0:4
expect 2 "--generate=9: 9 is above" "${TINY[@]}" --prompt=8 --generate=9
expect 2 "--max_batch: 0 is out of range" --max_batch=0
expect 2 "--requests: 0 is out of range" --requests=0
expect 2 "--find_max_rate: give the limits" --find_max_rate
expect 2 "--weights: 'fp8' is not a weight format" --weights=fp8
expect 2 "--batch: gpt_serve's streams are --max_batch" --batch=4
expect 2 "--out: " "${TINY[@]}" --prompt=4 --generate=4 --requests=1 --out="$TMP/no/such/dir/x.json"
expect 1 "no_such_flag" --no_such_flag
"$SERVE" --help >"$TMP/help.txt" 2>&1 || fail "--help exited non-zero"
for flag in --requests --rate --prompt --generate --max_batch --ttft_limit_ms --tpot_limit_ms --find_max_rate \
            --compare_serial --weights --out --preset --seed --threads; do
  grep -qF -- "$flag" "$TMP/help.txt" || fail "--help does not list $flag"
done
grep -qF -- "--lr" "$TMP/help.txt" && ! grep -q "refused: .*lr" "$TMP/help.txt" && fail "--help lists --lr as a flag"
echo PASS
