#!/usr/bin/env bash
# End-to-end checks of //macro:gpt_step on a tiny config (CPU):
#  - the JSON counters agree with accounting: tokens/s = tokens / time, MFU = FLOPs / time / peak,
#    and FLOPs per step equal //tools:estimate's figure for the same shape;
#  - a filter that selects nothing exits 2; bad flags and data exit 1 or 2 naming the flag;
#  - the log and the summary are printed; --profile writes a Chrome trace.
#  Runs take a fixture peak and triad (a ceilings file from fixture_ceilings.py), not the
#  start-up FMA and STREAM probes: they test the step, and the test's time stays machine-bound.
set -u
STEP="$1"; ESTIMATE="$2"; FIXTURE="$3"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
SHAPE=(--preset=test-tiny --batch=2 --seq=8 --warmup_steps=1 --steps=4 --device=cpu --threads=1)
# The peak and the STREAM triad from a fixture file: no FMA loop, and no triad over arrays of 4x the
# last-level cache (20 s and more at --threads=1 on a VM that reports its host's 480 MiB L3).
python3 "$FIXTURE" "$TMP/tiny_ceil.json" --peak=1e12 --triad=1e10 || fail "writing the fixture ceilings file"
TINY=("${SHAPE[@]}" --ceilings="$TMP/tiny_ceil.json")

# 1. JSON counters against accounting.
"$STEP" "${TINY[@]}" --benchmark_format=json --benchmark_out="$TMP/out.json" >"$TMP/stdout.json" 2>"$TMP/log.txt" \
  || { cat "$TMP/log.txt"; fail "tiny run exited non-zero"; }
grep -q "step   1/4   timed" "$TMP/log.txt" || { cat "$TMP/log.txt"; fail "no per-step log line"; }
grep -q "== summary" "$TMP/log.txt" || fail "no summary"
grep -q "^MFU " "$TMP/log.txt" || fail "summary has no MFU line"
# The GEMM libraries are named (default auto: oneDNN and OpenBLAS, chosen per shape), every shape
# lists the three candidates' medians with one starred, and the MFU loss breakdown adds up to
# 100% with its first part equal to the printed MFU.
grep -q "^GEMM          oneDNN + OpenBLAS [0-9.]* + [0-9.]*, kernel per shape: " "$TMP/log.txt" \
  || { cat "$TMP/log.txt"; fail "no 'GEMM oneDNN + OpenBLAS <versions>, kernel per shape' line"; }
grep -q "^gpt_step: the step's 15 GEMM shapes run .* on " "$TMP/log.txt" || fail "no start-up line on the GEMM choices"
grep -q "^  --cpu_gemm=auto ran each shape on the fastest median" "$TMP/log.txt" || fail "no auto explanation line"
python3 - "$TMP/log.txt" <<'PY' || fail "GEMM choice table"
import re, sys
rows = re.findall(r"^  (\S+) +[NT]{2} M=.* x\d+ +(onednn|onednn_sgemm|openblas) +([0-9.]+) GFLOP/s .*\(medians: onednn ([0-9.]+)(\*?) onednn_sgemm ([0-9.]+)(\*?) openblas ([0-9.]+)(\*?)\)$", open(sys.argv[1]).read(), re.M)
assert len(rows) == 15, rows
for name, chosen, best, m1, s1, m2, s2, m3, s3 in rows:
    medians = {"onednn": float(m1), "onednn_sgemm": float(m2), "openblas": float(m3)}
    stars = {"onednn": s1, "onednn_sgemm": s2, "openblas": s3}
    assert [b for b in stars if stars[b]] == [chosen], (name, chosen, stars)
    assert medians[chosen] == max(medians.values()), (name, chosen, medians)
    assert float(best) >= medians[chosen] - 0.05, (name, best, medians)
print("choice table OK:", len(rows), "shapes")
PY
grep -q "^MFU rating    " "$TMP/log.txt" || fail "no MFU rating line"
python3 - "$TMP/log.txt" <<'PY' || fail "MFU breakdown"
import re, sys
log = open(sys.argv[1]).read()
mfu = float(re.search(r"^MFU +([0-9.]+)%", log, re.M).group(1))
parts = {k: float(v) for k, v in re.findall(r"^  (achieved MFU|lost to GEMM efficiency|lost to GEMMs slower in the step|lost in non-matmul ops|lost in optimizer and data) +(-?[0-9.]+)%", log, re.M)}
assert len(parts) == 5, parts  # on the CPU the GEMMs' in-step time is measured: its own part
assert parts["achieved MFU"] == mfu, (parts, mfu)
assert abs(sum(parts.values()) - 100) <= 0.02, parts
print("breakdown OK:", parts)
# The floor (GEMMs at their rates + AdamW's bytes at the in-place roof) and the step as a multiple.
m = re.search(r"^floor +([0-9.]+) ms per step = GEMMs at their rates above ([0-9.]+) ms \+ AdamW's [0-9.e+-]+ GB at the in-place roof's [0-9.]+ GB/s ([0-9.]+) ms; the step takes ([0-9.]+)x its floor$", log, re.M)
assert m, "no floor line"
floor, gemm, adamw, multiple = map(float, m.groups())
assert abs(floor - gemm - adamw) <= 0.11, (floor, gemm, adamw)
med = float(re.search(r"^step time +median ([0-9.]+) ms", log, re.M).group(1))
assert multiple > 0.5, multiple
assert re.search(r"^AdamW +[0-9.]+ ms per step, [0-9.]+ GB/s \(28 bytes per parameter: .*\) = [0-9]+% of its roof, the in-place memory roof 14.0 GB/s \(from --ceilings=", log, re.M), "no AdamW line"
print("floor OK:", floor, "ms; step", med, "ms median;", multiple, "x")
PY
grep -q '"mlbench_gemm": ".*auto.*oneDNN + OpenBLAS' "$TMP/out.json" \
  || fail "JSON context has no mlbench_gemm naming auto over oneDNN and OpenBLAS"
# Which attention ran (gpu_check fails an auto run on CUDA that did not get cuDNN): on the CPU, its one.
grep -q '"mlbench_attention_impl": "cpu"' "$TMP/out.json" || fail "JSON context has no mlbench_attention_impl cpu"
grep -q '"mlbench_attention_choice": "the CPU model' "$TMP/out.json" || fail "JSON context has no mlbench_attention_choice"

# 1a. bf16 on the CPU (mixed precision): where oneDNN runs bf16 (AVX-512), the run names it and its
# MFU divides by the bf16 peak (4e12 in the fixture file, the fp32 one 1e12); without AVX-512 it is
# refused with the reason.
python3 "$FIXTURE" "$TMP/bf16_ceil.json" --peak=1e12 --bf16_peak=4e12 || fail "writing the bf16 ceilings file"
if "$STEP" "${SHAPE[@]}" --dtype=bf16 --ceilings="$TMP/bf16_ceil.json" --benchmark_format=json \
    --benchmark_out="$TMP/bf16.json" >"$TMP/bf16_stdout.json" 2>"$TMP/bf16.txt"; then
  grep -q "^gpt_step: bf16 mixed precision on this CPU's bf16 units" "$TMP/bf16.txt" || { cat "$TMP/bf16.txt"; fail "no bf16 start-up line"; }
  grep -q "bf16 on oneDNN's matmul primitive" "$TMP/bf16.txt" || fail "the GEMM rates are not the bf16 GEMMs'"
  grep -q "(30 bytes per parameter: .*the bf16 copy of p written)" "$TMP/bf16.txt" || fail "AdamW's bytes without the bf16 copy"
  # What ran the GEMMs, whatever --cpu_gemm: the Linears bf16 on oneDNN, the attention on the flag's library.
  # Console output (the start-up lines go to stdout here, to stderr only under
  # --benchmark_format=json): both streams kept.
  "$STEP" "${SHAPE[@]}" --dtype=bf16 --cpu_gemm=openblas --ceilings="$TMP/bf16_ceil.json" \
    --benchmark_out="$TMP/bf16_ob.json" --benchmark_out_format=json >"$TMP/bf16_ob.txt" 2>&1 \
    || { cat "$TMP/bf16_ob.txt"; fail "bf16 with --cpu_gemm=openblas"; }
  grep -q "^gpt_step: GEMM Linears: bf16 on oneDNN's matmul primitive (.*), whatever --cpu_gemm; attention's fp32 GEMMs: OpenBLAS" \
    "$TMP/bf16_ob.txt" || { cat "$TMP/bf16_ob.txt"; fail "a bf16 run on --cpu_gemm=openblas must say its Linears ran oneDNN"; }
  grep -q '"mlbench_gemm_linears": "bf16 on oneDNN' "$TMP/bf16_ob.json" || fail "no mlbench_gemm_linears in the bf16 JSON"
  # The same file in fp32: the bf16 run's peak is 4x the fp32 run's (each scaled alike to the
  # run's one thread), and its MFU divides by it.
  "$STEP" "${SHAPE[@]}" --ceilings="$TMP/bf16_ceil.json" --benchmark_format=json \
    --benchmark_out="$TMP/fp32.json" >/dev/null 2>"$TMP/fp32.txt" || { cat "$TMP/fp32.txt"; fail "fp32 run"; }
  python3 - "$TMP/bf16.json" "$TMP/fp32.json" <<'PY' || fail "bf16 counters"
import json, sys
def run(path, dtype):
    runs = [b for b in json.load(open(path))["benchmarks"] if b.get("run_type") == "iteration"]
    assert len(runs) == 1 and f"/cpu/{dtype}/" in runs[0]["name"], [b["name"] for b in runs]
    return runs[0]
b, f = run(sys.argv[1], "bf16"), run(sys.argv[2], "fp32")
assert abs(b["peak_flops"] - 4 * f["peak_flops"]) <= 1e-9 * b["peak_flops"], (b["peak_flops"], f["peak_flops"])
assert abs(b["mfu"] - b["flops_per_second"] / b["peak_flops"]) <= 1e-9 * b["mfu"] + 1e-15, b
print("bf16 OK: peak", b["peak_flops"], "= 4 x fp32's", f["peak_flops"], "; mfu", b["mfu"])
PY
elif grep -q "avx512f" /proc/cpuinfo; then
  cat "$TMP/bf16.txt"; fail "--dtype=bf16 refused on a CPU with AVX-512"
else
  grep -q "oneDNN cannot run a bf16 matmul here" "$TMP/bf16.txt" || { cat "$TMP/bf16.txt"; fail "bf16 refused without the reason"; }
fi
# Without the bf16 peak in the file: the error says how to measure it.
python3 "$FIXTURE" "$TMP/fp32_ceil.json" --peak=1e12 || fail "writing the fp32 ceilings file"
if "$STEP" "${SHAPE[@]}" --dtype=bf16 --ceilings="$TMP/fp32_ceil.json" >"$TMP/nobf16.txt" 2>&1; then
  fail "--dtype=bf16 ran with a ceilings file that has no bf16 peak"
fi
grep -q "BM_Ceiling/cpu/bf16" "$TMP/nobf16.txt" || grep -q "oneDNN cannot run a bf16 matmul here" "$TMP/nobf16.txt" \
  || { cat "$TMP/nobf16.txt"; fail "no way to the bf16 peak named"; }

# 1b. The same run on OpenBLAS names it.
"$STEP" "${TINY[@]}" --cpu_gemm=openblas >"$TMP/blas.txt" 2>&1 || { cat "$TMP/blas.txt"; fail "--cpu_gemm=openblas run"; }
grep -q "^GEMM          OpenBLAS [0-9.]*, kernel " "$TMP/blas.txt" || { cat "$TMP/blas.txt"; fail "no 'GEMM OpenBLAS' line"; }
flops_est=$("$ESTIMATE" gpt --layers=2 --heads=2 --width=16 --vocab=64 --block=16 --seq=8 --batch=2 \
  | sed -n 's/.*train_flops_per_step_full=\([0-9.e+]*\).*/\1/p')
[[ -n "$flops_est" ]] || fail "could not read //tools:estimate's FLOPs per step"
python3 - "$TMP/out.json" "$TMP/stdout.json" "$flops_est" <<'PY' || fail "counter check"
import json, math, sys
out = json.load(open(sys.argv[1]))
stdout = json.load(open(sys.argv[2]))   # stdout must be clean JSON too
flops_est = float(sys.argv[3])
runs = [b for b in out["benchmarks"] if b["name"].startswith("BM_GptStep/")]
assert len(runs) == 1, runs
b = runs[0]
for k in ["tokens_per_second", "flops_per_second", "mfu", "hfu", "ms_per_step", "loss", "flops_per_step", "peak_flops"]:
    assert k in b, f"missing counter {k}"
unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
step_s = b["real_time"] * unit          # mean manual time per iteration (device clock)
tokens_per_step = 2 * 8
def close(a, e, what):
    assert math.isclose(a, e, rel_tol=1e-6), f"{what}: {a} != {e}"
close(b["flops_per_step"], flops_est, "FLOPs/step vs //tools:estimate")
close(b["tokens_per_second"], tokens_per_step / step_s, "tokens/s = tokens / time")
close(b["mfu"], b["flops_per_step"] / step_s / b["peak_flops"], "MFU = FLOPs / time / peak")
assert 0 < b["mfu"] <= 1, b["mfu"]
assert 0 < b["hfu"] <= 1, b["hfu"]
assert math.isfinite(b["loss"]) and b["loss"] > 0
st = b["step_times_s"]                  # every step's time, for tools/report's steps.svg
assert len(st["warmup"]) == 1 and len(st["timed"]) == 4, st
assert all(t > 0 for t in st["warmup"] + st["timed"]), st
timed = sorted(st["timed"])
close((timed[1] + timed[2]) / 2 * 1e3, b["ms_per_step"], "median of step_times_s vs ms_per_step")
print("counters OK:", {k: b[k] for k in ["tokens_per_second", "mfu", "hfu", "loss"]})
PY

# 1c. GEMM rates from a --ceilings file that holds them (keys as //micro:ceilings writes them):
# no start-up measurement, and the breakdown uses them. With all three backends' rates in the
# file, auto chooses from it alone: oneDNN's matmul made the slow one (1 GFLOP/s against 3 and 2),
# every shape runs onednn_sgemm, and the step still trains (its loss is checked as always).
python3 "$FIXTURE" "$TMP/ceil.json" --gemm_tiny_bt=16 --gemm_rate=1e9 || fail "writing the ceilings file"
"$STEP" "${SHAPE[@]}" --cpu_gemm=onednn --ceilings="$TMP/ceil.json" >"$TMP/ceil.txt" 2>&1 || { cat "$TMP/ceil.txt"; fail "--ceilings run"; }
grep -q "GEMM shapes, from --ceilings=$TMP/ceil.json:" "$TMP/ceil.txt" || { cat "$TMP/ceil.txt"; fail "rates not taken from --ceilings"; }
grep -q "1.0 GFLOP/s" "$TMP/ceil.txt" || fail "the file's 1 GFLOP/s rates are not shown"
python3 "$FIXTURE" "$TMP/ceil3.json" --gemm_tiny_bt=16 --gemm_rate=1e9 --gemm_rate_onednn_sgemm=3e9 \
  --gemm_rate_openblas=2e9 || fail "writing the three-backend ceilings file"
"$STEP" "${SHAPE[@]}" --ceilings="$TMP/ceil3.json" >"$TMP/ceil3.txt" 2>&1 || { cat "$TMP/ceil3.txt"; fail "auto --ceilings run"; }
grep -q "GEMM shapes, from --ceilings=$TMP/ceil3.json:" "$TMP/ceil3.txt" || { cat "$TMP/ceil3.txt"; fail "auto measured what the file holds"; }
grep -q "^gpt_step: the step's 15 GEMM shapes run 15 on onednn_sgemm " "$TMP/ceil3.txt" || { cat "$TMP/ceil3.txt"; fail "auto did not choose the fastest file rate"; }
[[ $(grep -c " onednn_sgemm *3.0 GFLOP/s .*(medians: onednn 1.0 onednn_sgemm 3.0\* openblas 2.0)" "$TMP/ceil3.txt") -eq 15 ]] \
  || { cat "$TMP/ceil3.txt"; fail "the choice table does not show the file's rates"; }

# 2. A filter that selects nothing, or is not a valid regex, is an error (exit 2): a run that
#    measured nothing must not look like a success to a script.
out="$("$STEP" "${TINY[@]}" --benchmark_filter=nothing_matches_this 2>&1)"; rc=$?
[[ $rc -eq 2 ]] || fail "empty filter exited $rc, expected 2"
grep -q "selects no case" <<<"$out" || fail "empty filter: no 'selects no case' message: $out"
grep -q "^step " <<<"$out" && fail "empty filter still ran steps"
out="$("$STEP" "${TINY[@]}" '--benchmark_filter=BM_(' 2>&1)"; rc=$?
[[ $rc -eq 2 ]] || fail "invalid filter regex exited $rc, expected 2"

# 3. Bad input: the exit code of its kind (1: flag not understood, 2: bad value or data), the
#    message on stderr naming the flag, and no step run.
expect_error() {
  local code="$1" phrase="$2"; shift 2
  local msg rc
  msg="$("$STEP" "$@" 2>&1 >/dev/null)"; rc=$?
  [[ $rc -eq $code ]] || fail "$* exited $rc, expected $code: $msg"
  grep -q -- "$phrase" <<<"$msg" || fail "$*: stderr does not say '$phrase': $msg"
}
expect_error 2 --seq --seq=2048 --block=1024
expect_error 2 --heads --heads=5 --width=768
expect_error 2 --data --real_data --data=/nonexistent/train.bin
expect_error 1 bogus_flag --bogus_flag=1
expect_error 2 "--lr: inf" "${TINY[@]}" --lr=inf
expect_error 2 "--lr: nan" "${TINY[@]}" --lr=nan
expect_error 2 "--weight_decay: nan" "${TINY[@]}" --weight_decay=nan
# A token file made for a larger vocabulary: refused before the first step (test-tiny: vocab 60).
python3 -c "
import struct, sys
open(sys.argv[1], 'wb').write(struct.pack('<200H', *[(7 * i) % 100 for i in range(200)]))
" "$TMP/big_vocab.bin"
expect_error 2 "outside the vocabulary \\[0, 60)" "${TINY[@]}" --data="$TMP/big_vocab.bin"
# A token file of odd length: refused, naming its size (its last byte would be half a token).
cp "$TMP/big_vocab.bin" "$TMP/odd.bin"; printf x >>"$TMP/odd.bin"  # 200 tokens and a half
expect_error 2 "has 401 bytes, an odd count" "${TINY[@]}" --data="$TMP/odd.bin"
expect_error 2 --cpu_gemm=bogus --cpu_gemm=bogus
# Under an address-space limit (ulimit -v) the memory pre-check counts the limit, not only
# MemAvailable: refused up front with the figures, not an abort halfway (model/host_memory.h).
# Not in a sanitizer build: ASan's shadow memory cannot be reserved under the limit (and CI sends
# its report to a log file, not to stderr), so the binary would abort before it starts.
if ! ldd "$STEP" | grep -q "libasan\|libubsan"; then
  msg="$( (ulimit -v 3000000; "$STEP" --preset=gpt2 --batch=8 --seq=512 --device=cpu --peak_flops=1e12) 2>&1 >/dev/null)"; rc=$?
  [[ $rc -eq 2 ]] || fail "gpt2 --batch=8 --seq=512 under ulimit -v 3000000 exited $rc, expected 2: $msg"
  grep -q "not enough host memory.*address-space limit (RLIMIT_AS, ulimit -v)" <<<"$msg" || fail "ulimit -v: $msg"
fi
msg="$("$STEP" --cpu_gemm=bogus 2>&1)"; grep -q "onednn, onednn_sgemm, openblas, auto" <<<"$msg" || fail "--cpu_gemm=bogus does not list the allowed values: $msg"
if ! "$STEP" --help | grep -q -- "--batch"; then fail "--help does not list --batch"; fi
"$STEP" --help | grep -q "Exit status" || fail "--help does not document the exit codes"
msg="$("$STEP" --device=cuda 2>&1)"; rc=$?
if [[ "$msg" == *"no CUDA device"* ]]; then
  [[ $rc -eq 2 ]] || fail "--device=cuda without a GPU exited $rc, expected 2"
  grep -q -- "--device" <<<"$msg" || fail "--device=cuda error does not name --device"
fi

# 4. --profile writes a loadable Chrome trace and prints the top ops.
"$STEP" "${TINY[@]}" --profile --profile_out="$TMP/trace.json" >"$TMP/profile.txt" 2>&1 || { cat "$TMP/profile.txt"; fail "--profile run"; }
grep -q "top ops by self time" "$TMP/profile.txt" || fail "no top-ops table"
python3 -c "
import json,sys
d=json.load(open('$TMP/trace.json'))
names={e['name'] for e in d['traceEvents'] if e.get('ph')=='X'}
assert len(names) >= 5, names
print('trace OK:', len(d['traceEvents']), 'events,', len(names), 'names')
" || fail "trace JSON"
echo PASS
