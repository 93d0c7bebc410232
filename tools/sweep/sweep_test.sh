#!/usr/bin/env bash
# //tools:sweep end to end on the tiny preset (each run a second or two): a grid of 2 points (and
# 2 refused) and 2 repetitions writes 4 cases with measured and predicted step time, MFU and peak memory;
# the second repetition reads the GEMM rates the first cached; a point that cannot fit is refused
# before anything runs, naming the bytes, and the rest run; bad flags are exit 2 naming the flag;
# SIGINT mid-sweep leaves a valid JSON of the finished runs and no temporary file.
set -u
sweep="$1"
gpt_step="$2"
fail() { echo "FAIL: $*"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- A grid with one point that cannot fit (gpt2 at B=4096 T=1024 needs hundreds of GB).
mkdir "$tmp/logs"
out="$("$sweep" --gpt_step="$gpt_step" --preset=test-tiny,gpt2 --batch=1,2,4096 --seq=8,16,1024 --steps=2 \
  --warmup_steps=1 --repetitions=2 --out="$tmp/s.json" --log_dir="$tmp/logs" --dry_run 2>&1)"; rc=$?
echo "$out" | head -5
[[ $rc -eq 0 ]] || fail "dry run: exit $rc"
grep -q 'refused  gpt2 fp32 B=4096 T=1024 .*needs [0-9.]* GB' <<<"$out" || fail "no refusal naming the bytes"
grep -q 'refused  test-tiny fp32 B=1 T=1024 .*block size 16' <<<"$out" || fail "T beyond the block not refused"
[[ -e "$tmp/s.json" ]] && fail "--dry_run wrote the JSON"

out="$("$sweep" --gpt_step="$gpt_step" --preset=test-tiny --batch=1,2 --seq=8,32 --steps=2 --warmup_steps=1 \
  --repetitions=2 --out="$tmp/s.json" --log_dir="$tmp/logs" 2>&1)"; rc=$?
echo "$out"
[[ $rc -eq 0 ]] || fail "sweep: exit $rc"
grep -q '^\[4/4\] test-tiny fp32 B=2 T=8 (repetition 2 of 2): .* ms/step, MFU .*%, predicted .* ms (measured .*x), peak .* GB (predicted .* GB).*left$' <<<"$out" \
  || fail "no progress line for run 4 of 4 with its figures and the time left"
grep -q 'refused  test-tiny fp32 B=2 T=32 .*block size 16' <<<"$out" || fail "T=32 beyond the block not refused"
python3 - "$tmp/s.json" <<'PY' || fail "the sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"]
assert len(b) == 4, len(b)  # 2 points x 2 repetitions
names = sorted({e["name"] for e in b})
assert names == ["BM_Sweep/test-tiny/cpu/fp32/B:1/T:8/recompute:none",
                 "BM_Sweep/test-tiny/cpu/fp32/B:2/T:8/recompute:none"], names
for e in b:
    for k in ("ms_per_step", "mfu", "predicted_ms", "measured_over_predicted", "mem_peak_bytes_measured",
              "mem_peak_bytes", "mem_params_bytes", "mem_grads_bytes", "mem_adamw_bytes", "mem_activations_bytes",
              "batch", "seq", "tokens_per_step", "params", "attention_flops_share", "mfu_min", "mfu_max"):
        assert k in e and e[k] == e[k], (e["name"], k)
    assert e["predicted_ms"] > 0 and e["ms_per_step"] > 0 and e["mem_peak_bytes_measured"] > 0
    assert e["mfu_min"] <= e["mfu"] <= e["mfu_max"], e["name"]
    assert abs(e["measured_over_predicted"] - e["ms_per_step"] / e["predicted_ms"]) < 0.05 * e["measured_over_predicted"]
# Interleaved: every point's first repetition, then every point's second.
assert [e["repetition_index"] for e in b] == [0, 0, 1, 1], [e["repetition_index"] for e in b]
ctx = d["context"]
assert len(ctx["mlbench_machine_key"]) == 8
info = json.loads(ctx["mlbench_sweep"])
assert info["format"] == "mlbench-sweep/1" and info["repetitions"] == 2, info
assert [r["point"] for r in info["refused"]] == ["test-tiny fp32 B=1 T=32", "test-tiny fp32 B=2 T=32"], info
PY
# The first run measured its GEMM rates and cached them, and the same point's second run read
# them; unless the first run was DISTURBED (a busy machine): then its rates were not kept and the
# second run measured again.
log1="$tmp/logs/test-tiny_cpu_fp32_B_1_T_8_recompute_none.r1.log"
log2="$tmp/logs/test-tiny_cpu_fp32_B_1_T_8_recompute_none.r2.log"
grep -q 'measured at start-up' "$log1" || fail "run 1 did not measure its GEMM rates"
disturbed1="$(python3 -c "
import json
b = json.load(open('$tmp/s.json'))['benchmarks']
print(int(b[0]['disturbed']))")"
if [[ "$disturbed1" == 0 ]]; then
  grep -q 'from --gemm_rates=' "$log2" || fail "run 2 did not read the GEMM rates run 1 cached"
else
  grep -q 'not cached' <<<"$out" || fail "run 1 was DISTURBED and the progress line does not say its rates were dropped"
  grep -q 'measured at start-up' "$log2" || fail "run 2 read rates a DISTURBED run measured"
fi
ls "$tmp" | grep -q 's.json\.' && fail "a temporary file was left beside --out: $(ls "$tmp")"

# --- Bad flags: exit 2, naming the flag, before anything runs.
for bad in --batch=0 --batch=1,x --seq=-4 --preset=nope --dtype=fp8 --repetitions=0 --steps=0 \
    --recompute=most --out="$tmp/no/such/dir/s.json" --log_dir="$tmp/nodir"; do
  msg="$("$sweep" --gpt_step="$gpt_step" "$bad" 2>&1)"; rc=$?
  [[ $rc -eq 2 ]] || fail "$bad: exit $rc, want 2"
  flag="${bad%%=*}"
  grep -q -- "$flag" <<<"$msg" || fail "$bad: the message does not name $flag: $msg"
done

# --- SIGINT after the first run: the finished runs stay in a valid JSON, nothing temporary left.
set -m
"$sweep" --gpt_step="$gpt_step" --preset=test-tiny --batch=1,2 --seq=8,16 --steps=2 --warmup_steps=1 \
  --repetitions=3 --out="$tmp/i.json" >"$tmp/i.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q '^\[1/12\]' "$tmp/i.log" && break; sleep 0.1; done
grep -q '^\[1/12\]' "$tmp/i.log" || fail "no first run within 60 s: $(cat "$tmp/i.log")"
kill -INT "$pid"
wait "$pid"; rc=$?
set +m
[[ $rc -eq 130 ]] || fail "SIGINT: exit $rc, want 130"
python3 -c "
import json, sys
b = json.load(open('$tmp/i.json'))['benchmarks']
assert 1 <= len(b) < 12, len(b)
" || fail "the interrupted sweep's JSON"
ls "$tmp" | grep -q 'i.json\.' && fail "a temporary file was left after SIGINT: $(ls "$tmp")"
echo "PASS"
