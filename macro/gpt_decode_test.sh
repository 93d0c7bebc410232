#!/usr/bin/env bash
# End-to-end checks of //macro:gpt_decode on test-tiny and llama-tiny (CPU):
#  - the JSON counters agree with accounting's formulas: decode tokens/s = new tokens / decode
#    time, bytes per token = weights once per step + each stream's KV cache (worked here from
#    the shape), bound = 1 / (bytes per token / read roof + cache writes / write roof), MFU =
#    FLOPs per token x tokens/s / peak;
#  - the summary and the batch sweep table are printed;
#  - --weights=int8: the bytes per token count int8 weights and fp32 scales (worked from the shape);
#    --weights=bf16 --dtype=fp32: bf16 weight-only, 2 bytes a Linear weight, on any CPU;
#  - bad flags exit 2 naming the flag (prompt + generate > block, batch 0, unknown dtype or weight
#    format, int8 with bf16, a train-step flag), an unknown flag exits 1, --help exits 0.
#  Runs take a fixture ceilings file (fixture_ceilings.py: peak, STREAM copy, memory roofs), not the
#  start-up probes: they test the decode, and the test's time stays machine-bound.
set -u
DECODE="$1"; FIXTURE="$2"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
python3 "$FIXTURE" "$TMP/ceil.json" --peak=1e12 --bandwidth=1e12 || fail "writing the fixture ceilings file"
TINY=(--preset=test-tiny --device=cpu --threads=1 --warmup_steps=1 --steps=3 --ceilings="$TMP/ceil.json")

# 1. Counters against accounting (B=2, P=4, G=5: positions 4..8).
"$DECODE" "${TINY[@]}" --batch=2 --prompt=4 --generate=5 --benchmark_format=json \
  --benchmark_out="$TMP/out.json" >"$TMP/stdout.json" 2>"$TMP/log.txt" \
  || { cat "$TMP/log.txt"; fail "tiny run exited non-zero"; }
for pat in "gen  1/3  timed" "== summary: BM_GptDecode/test-tiny/cpu/fp32/B:2/P:4/G:5" "^decode        " \
           "^time/token    median" "^prefill       " "^bytes/token   " "^bound         " "^MFU           " \
           "gpt_decode: bandwidth .*read memory roof (cache writes at the write_nt roof"; do
  grep -q "$pat" "$TMP/log.txt" || { cat "$TMP/log.txt"; fail "log has no '$pat'"; }
done
python3 - "$TMP/out.json" "$TMP/stdout.json" <<'PY' || fail "counter check"
import json, math, sys
out = json.load(open(sys.argv[1]))
json.load(open(sys.argv[2]))  # stdout is clean JSON too
runs = [b for b in out["benchmarks"] if b["name"].startswith("BM_GptDecode/")]
assert len(runs) == 1, runs
b = runs[0]
B, P, G, n = 2, 4, 5, 3
unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
decode_s = b["real_time"] * unit  # mean decode time of a generation (manual time)
def close(a, e, what, tol=1e-6):
    assert math.isclose(a, e, rel_tol=tol), f"{what}: {a} != {e}"
# test-tiny: L=2, C=16, Vp=64, block 16. Parameters without wpe N = 7616 (wte 1024, 2 layers of
# 3280, ln_f 32); a step reads (N + one wpe row) x 4 B, and per stream 2*L*C*(pos+1) x 4 B.
L, C, N = 2, 16, 7616
weights = (N + C) * 4 * G
keys = sum(p + 1 for p in range(P, P + G))
kv = 2 * L * C * keys * 4 * B
bytes_per_token = (weights + kv) / (B * G)
close(b["bytes_per_token"], bytes_per_token, "bytes per token")
close(b["weight_bytes_per_token"], weights / (B * G), "weight bytes per token")
close(b["kv_bytes_per_token"], kv / (B * G), "KV bytes per token")
close(b["decode_tokens_per_second"], B * G / decode_s, "decode tokens/s = new tokens / decode time")
close(b["decode_tokens_per_second_per_stream"], G / decode_s, "per stream")
# The fixture's read roof (1.4x its copy) bounds the reads; the cache's writes, 2*L*C x 4 B per
# token, count at its write_nt roof.
close(b["bandwidth"], 1.4e12, "the read roof")
close(b["write_bandwidth"], 1e12, "the write_nt roof")
close(b["kv_write_bytes_per_token"], 2 * L * C * 4, "cache bytes written per token")
close(b["bound_tokens_per_second"], 1 / (bytes_per_token / b["bandwidth"] + 2 * L * C * 4 / b["write_bandwidth"]),
      "bound = 1 / (bytes per token / read roof + written bytes per token / write roof)")
close(b["bound_fraction"], b["decode_tokens_per_second"] / b["bound_tokens_per_second"], "fraction of the bound")
flops = 2 * N + 4 * L * C * keys / G
close(b["flops_per_token"], flops, "FLOPs per token = 2N + 4LC(pos+1)")
close(b["mfu"], flops * b["decode_tokens_per_second"] / b["peak_flops"], "MFU")
assert 0 < b["mfu"] < 1, b["mfu"]
assert b["ms_per_token_median"] <= b["ms_per_token_p90"], b
assert b["prefill_tokens_per_second"] > 0 and b["verified"] == 1 and b["batch"] == B, b
print("counters OK:", {k: b[k] for k in ["decode_tokens_per_second", "bytes_per_token", "bound_fraction", "mfu"]})
PY
grep -q '"mlbench_decode_bandwidth": ".*read memory roof' "$TMP/out.json" || fail "JSON context has no mlbench_decode_bandwidth"

# 1a. --dtype=bf16 on the CPU: the Linear weights read as bf16 (2 bytes each; the norms, biases and
#     the token's embedding rows fp32: accounting/decode_cost.h's weight-only rule), the KV cache fp32,
#     MFU against the file's bf16 peak (4x its fp32 one); without AVX-512 refused with the reason.
python3 "$FIXTURE" "$TMP/bf16_ceil.json" --peak=1e12 --bf16_peak=4e12 --bandwidth=1e12 || fail "writing the bf16 file"
TINY16=(--preset=test-tiny --device=cpu --threads=1 --warmup_steps=1 --steps=3 --ceilings="$TMP/bf16_ceil.json")
if "$DECODE" "${TINY16[@]}" --dtype=bf16 --batch=2 --prompt=4 --generate=5 --benchmark_format=json \
    --benchmark_out="$TMP/bf16.json" >/dev/null 2>"$TMP/bf16.txt"; then
  "$DECODE" "${TINY16[@]}" --batch=2 --prompt=4 --generate=5 --benchmark_format=json \
    --benchmark_out="$TMP/fp32.json" >/dev/null 2>"$TMP/fp32.txt" || { cat "$TMP/fp32.txt"; fail "fp32 run"; }
  python3 - "$TMP/bf16.json" "$TMP/fp32.json" <<'PY' || { cat "$TMP/bf16.txt"; fail "bf16 counters"; }
import json, math, sys
def run(path, dtype):
    runs = [b for b in json.load(open(path))["benchmarks"] if b["name"].startswith("BM_GptDecode/")]
    assert len(runs) == 1 and f"/cpu/{dtype}/" in runs[0]["name"], [b["name"] for b in runs]
    return runs[0]
b, f = run(sys.argv[1], "bf16"), run(sys.argv[2], "fp32")
L, C, N, MM, B, P, G = 2, 16, 7616, 7168, 2, 4, 5
keys = sum(p + 1 for p in range(P, P + G))
assert math.isclose(b["weight_bytes_per_token"], (2 * MM + 4 * (N - MM) + 4 * 2 * C) / B), b["weight_bytes_per_token"]
assert math.isclose(b["kv_bytes_per_token"], 2 * L * C * keys * 4 * B / (B * G)), b["kv_bytes_per_token"]
assert math.isclose(b["peak_flops"], 4 * f["peak_flops"], rel_tol=1e-9), (b["peak_flops"], f["peak_flops"])
assert b["verified"] == 1, b
print("bf16 decode OK: weight bytes/token", b["weight_bytes_per_token"], "peak", b["peak_flops"])
PY
elif grep -q avx512f /proc/cpuinfo; then
  cat "$TMP/bf16.txt"; fail "gpt_decode --dtype=bf16 refused on a CPU with AVX-512"
else
  grep -q "oneDNN cannot run a bf16 matmul here" "$TMP/bf16.txt" || { cat "$TMP/bf16.txt"; fail "bf16 refused without the reason"; }
  grep -q "give --weights=bf16 --dtype=fp32" "$TMP/bf16.txt" || { cat "$TMP/bf16.txt"; fail "bf16 refused without the weight-only hint"; }
fi

# 1b. --cpu_gemm=auto (the default) chooses among the three backends for the prompt's GEMMs
#     (B x P = 12 rows: GEMMs; a decode step's 2 rows run the matrix-vector form) and says so.
"$DECODE" "${TINY[@]}" --steps=1 --batch=2 --prompt=6 --generate=2 >"$TMP/auto.txt" 2>&1 \
  || { cat "$TMP/auto.txt"; fail "auto run exited non-zero"; }
grep -q "gpt_decode: GEMM choice: 4 prompt GEMM shapes, measured at start-up" "$TMP/auto.txt" || { cat "$TMP/auto.txt"; fail "no GEMM choice header"; }
[[ $(grep -Ec "gpt_decode: GEMM choice: (qkv|attproj|fc|fcproj)\.fwd +NT M:12 .* onednn [0-9.]+\*? +onednn_sgemm [0-9.]+\*? +openblas [0-9.]+\*? GFLOP/s" "$TMP/auto.txt") -eq 4 ]] \
  || { cat "$TMP/auto.txt"; fail "not every prompt shape lists the three candidates"; }

# 1c. The Llama family on the CPU: llama-tiny (L=2, C=32, 4 query heads and 2 K/V heads of 8,
#     SwiGLU of F=64, RMSNorm, RoPE, untied LM head, V=64, no biases). The KV cache and its bytes
#     per token count the 2 K/V heads, not the 4 query heads; the weights are N (no untied input
#     embedding) + the token's wte row; the summary says so.
"$DECODE" --preset=llama-tiny --device=cpu --threads=1 --warmup_steps=1 --steps=3 --ceilings="$TMP/ceil.json" \
  --batch=2 --prompt=4 --generate=5 --benchmark_format=json --benchmark_out="$TMP/llama.json" \
  >/dev/null 2>"$TMP/llama.txt" || { cat "$TMP/llama.txt"; fail "llama-tiny run exited non-zero"; }
for pat in "== summary: BM_GptDecode/llama-tiny/cpu/fp32/B:2/P:4/G:5" \
           "case B=2 (KV cache 4.61 kB: 2 K/V heads of 8 for 4 query heads)" \
           "^bytes/token   .* + KV cache 1.79 kB (K and V of KV=2 heads x hd=8 x L=2 layers per position: 256 B;" \
           "^MFU .*(2N + 4\*L\*H\*hd\*(pos+1))"; do
  grep -q "$pat" "$TMP/llama.txt" || { cat "$TMP/llama.txt"; fail "llama-tiny log has no '$pat'"; }
done
python3 - "$TMP/llama.json" <<'PY2' || { cat "$TMP/llama.txt"; fail "llama-tiny counters"; }
import json, math, sys
out = json.load(open(sys.argv[1]))
assert "rmsnorm rope(10000) swiglu" in out["context"]["mlbench_model"], out["context"]["mlbench_model"]
runs = [b for b in out["benchmarks"] if b["name"].startswith("BM_GptDecode/llama-tiny/")]
assert len(runs) == 1, runs
b = runs[0]
L, C, H, KV, hd, B, P, G = 2, 32, 4, 2, 8, 2, 4, 5
# Parameters: wte 64x32, per layer ln1 32, qkv (32 + 2*16) x 32, attproj 32x32, ln2 32, fc 128x32
# (gate | up), fcproj 32x64; lnf 32; lm_head 64x32. N leaves out the untied wte: 20640.
N = 2 * (32 + 64 * 32 + 32 * 32 + 32 + 128 * 32 + 32 * 64) + 32 + 64 * 32
assert N == 20640, N
keys = sum(p + 1 for p in range(P, P + G))
weights = (N + C) * 4 * G                 # + the token's row of the untied wte, no position table
kv = 2 * L * KV * hd * keys * 4 * B       # K/V heads only: half of 2 * L * C
def close(a, e, what):
    assert math.isclose(a, e, rel_tol=1e-6), f"{what}: {a} != {e}"
close(b["weight_bytes_per_token"], weights / (B * G), "weight bytes per token")
close(b["kv_bytes_per_token"], kv / (B * G), "KV bytes per token (K/V heads)")
close(b["bytes_per_token"], (weights + kv) / (B * G), "bytes per token")
close(b["bound_tokens_per_second"],
      1 / (b["bytes_per_token"] / b["bandwidth"] + 2 * L * KV * hd * 4 / b["write_bandwidth"]), "bound")
close(b["flops_per_token"], 2 * N + 4 * L * H * hd * keys / G, "FLOPs per token = 2N + 4*L*H*hd*(pos+1)")
assert b["verified"] == 1 and 0 < b["mfu"] < 1, b
print("llama-tiny decode OK:", {k: b[k] for k in ["bytes_per_token", "kv_bytes_per_token", "flops_per_token"]})
PY2

# 1c2. --weights=bf16 --dtype=fp32 (CPU, any ISA): bf16 weight-only, fp32 arithmetic; the case name
#      says bf16w, the Linear weights count 2 bytes, the rest fp32, the FLOPs and peak are fp32's.
"$DECODE" "${TINY[@]}" --weights=bf16 --dtype=fp32 --batch=2 --prompt=4 --generate=5 --benchmark_format=json \
  --benchmark_out="$TMP/bf16w.json" >/dev/null 2>"$TMP/bf16w.txt" || { cat "$TMP/bf16w.txt"; fail "bf16w run exited non-zero"; }
for pat in "== summary: BM_GptDecode/test-tiny/cpu/bf16w/B:2/P:4/G:5" \
           "^bytes/token   .*bf16 weights: 2 bytes per Linear weight (7168), the norms, biases and the token's embedding rows in fp32" \
           "gpt_decode: bf16 weights on the CPU: .*the prompt: widened tiles through the fp32 GEMM"; do
  grep -q "$pat" "$TMP/bf16w.txt" || { cat "$TMP/bf16w.txt"; fail "bf16w log has no '$pat'"; }
done
python3 - "$TMP/bf16w.json" <<'PYW' || { cat "$TMP/bf16w.txt"; fail "bf16w counters"; }
import json, math, sys
out = json.load(open(sys.argv[1]))
assert out["context"]["mlbench_weights"] == "bf16", out["context"]
runs = [b for b in out["benchmarks"] if b["name"].startswith("BM_GptDecode/")]
assert len(runs) == 1 and "/cpu/bf16w/" in runs[0]["name"], [b["name"] for b in runs]
b = runs[0]
L, C, N, MM, B, P, G = 2, 16, 7616, 7168, 2, 4, 5
step = 2 * MM + 4 * (N - MM) + 4 * 2 * C
assert step == 16256, step
assert math.isclose(b["weight_bytes_per_token"], step / B, rel_tol=1e-9), b["weight_bytes_per_token"]
keys = sum(p + 1 for p in range(P, P + G))
assert math.isclose(b["flops_per_token"], 2 * N + 4 * L * C * keys / G, rel_tol=1e-9), b["flops_per_token"]
assert b["verified"] == 1, b
print("bf16 weight-only decode OK: weight bytes/token", b["weight_bytes_per_token"])
PYW

# 1d. --weights=int8 (CPU): every Linear weight and the tied LM head in int8 with an fp32 scale a
#     row; the bytes per token count them so (accounting/decode_cost.h), the case name says int8w
#     and the summary and the JSON say the format.
"$DECODE" "${TINY[@]}" --weights=int8 --batch=2 --prompt=4 --generate=5 --benchmark_format=json \
  --benchmark_out="$TMP/int8.json" >/dev/null 2>"$TMP/int8.txt" || { cat "$TMP/int8.txt"; fail "int8 run exited non-zero"; }
for pat in "== summary: BM_GptDecode/test-tiny/cpu/int8w/B:2/P:4/G:5" \
           "^bytes/token   .*int8 weights: 1 byte per Linear weight (7168) + a 4-byte fp32 scale per output row (352 rows)" \
           "gpt_decode: int8 weights on the CPU"; do
  grep -q "$pat" "$TMP/int8.txt" || { cat "$TMP/int8.txt"; fail "int8 log has no '$pat'"; }
done
python3 - "$TMP/int8.json" <<'PY3' || { cat "$TMP/int8.txt"; fail "int8 counters"; }
import json, math, sys
out = json.load(open(sys.argv[1]))
assert out["context"]["mlbench_weights"] == "int8", out["context"]
runs = [b for b in out["benchmarks"] if b["name"].startswith("BM_GptDecode/")]
assert len(runs) == 1 and "/cpu/int8w/" in runs[0]["name"], [b["name"] for b in runs]
b = runs[0]
assert "int8 weights" in b["label"], b["label"]
# test-tiny: L=2, C=16, QKV=48, F=64, Vp=64, tied, learned positions. The matmul weights
# L*(QKV*C + C*C + F*C + C*F) + Vp*C in int8, a 4-byte scale per output row L*(QKV + C + F + C)
# + Vp, the rest of N (norms, biases) in fp32, and the token's wte and wpe rows in fp32.
L, C, QKV, F, V, N, B, P, G = 2, 16, 48, 64, 64, 7616, 2, 4, 5
mm = L * (QKV * C + C * C + F * C + C * F) + V * C
rows = L * (QKV + C + F + C) + V
assert (mm, rows) == (7168, 352), (mm, rows)
step = mm + 4 * rows + 4 * (N - mm) + 4 * 2 * C
assert step == 10496, step
keys = sum(p + 1 for p in range(P, P + G))
kv = 2 * L * C * keys * 4 * B
def close(a, e, what):
    assert math.isclose(a, e, rel_tol=1e-6), f"{what}: {a} != {e}"
close(b["weight_bytes_per_token"], step * G / (B * G), "int8 weight bytes per token")
close(b["bytes_per_token"], (step * G + kv) / (B * G), "bytes per token")
close(b["bound_tokens_per_second"], 1 / (b["bytes_per_token"] / b["bandwidth"] + 2 * L * C * 4 / b["write_bandwidth"]),
      "bound")
close(b["flops_per_token"], 2 * N + 4 * L * C * keys / G, "FLOPs per token: as fp32's")
assert b["verified"] == 1, b
print("int8 decode OK: weight bytes/token", b["weight_bytes_per_token"])
PY3

# 2. The batch sweep: cases B = 1, 2, 4 and the table.
"$DECODE" "${TINY[@]}" --steps=1 --prompt=2 --generate=3 --batch_sweep=4 >"$TMP/sweep.txt" 2>&1 \
  || { cat "$TMP/sweep.txt"; fail "sweep exited non-zero"; }
for c in B:1 B:2 B:4; do
  grep -q "BM_GptDecode/test-tiny/cpu/fp32/$c/P:2/G:3" "$TMP/sweep.txt" || fail "sweep has no case $c"
done
grep -q "== batch sweep" "$TMP/sweep.txt" || { cat "$TMP/sweep.txt"; fail "no sweep table"; }

# 3. Bad flags: exit 2 and the flag's name; an unknown flag: exit 1.
expect_exit() {  # code, text, flags...
  local code="$1" text="$2"; shift 2
  "$DECODE" "$@" >"$TMP/bad.txt" 2>&1
  local rc=$?
  [[ $rc -eq $code ]] || { cat "$TMP/bad.txt"; fail "$* exited $rc, expected $code"; }
  grep -q -- "$text" "$TMP/bad.txt" || { cat "$TMP/bad.txt"; fail "$* does not say '$text'"; }
}
expect_exit 2 "--generate: --prompt=10 + --generate=7 = 17 positions exceed the block size 16" \
  --preset=test-tiny --device=cpu --prompt=10 --generate=7
expect_exit 2 "--prompt: 16 tokens fill the block size 16" --preset=test-tiny --device=cpu --prompt=16
expect_exit 2 "--batch: 0 streams" --preset=test-tiny --device=cpu --batch=0
expect_exit 2 "--dtype" --preset=test-tiny --device=cpu --dtype=fp64
expect_exit 2 "--dtype: 'fp16' on the CPU" --preset=test-tiny --device=cpu --dtype=fp16
expect_exit 2 "--weights: 'int4' is not a weight format; allowed: auto, fp32, bf16, int8" --preset=test-tiny --device=cpu --weights=int4
expect_exit 2 "--weights: int8 with --dtype=bf16" --preset=test-tiny --device=cpu --weights=int8 --dtype=bf16
expect_exit 2 "--seq: gpt_step's sequence length" --preset=test-tiny --device=cpu --seq=8
expect_exit 2 "--batch_sweep: 65 is out of range" --preset=test-tiny --device=cpu --batch_sweep=65
expect_exit 2 "--prompt: -1 is negative" --preset=test-tiny --device=cpu --prompt=-1
expect_exit 1 "no_such_flag" --preset=test-tiny --no_such_flag=1
# Not an MPI program: under mpirun -np 2 every copy refuses (they would each run alone and overwrite
# each other's --benchmark_out), with the launcher's count named; no file is written.
mpirun -np 2 --oversubscribe "$DECODE" --preset=test-tiny --device=cpu --benchmark_out="$TMP/two.json" \
  >"$TMP/mpirun.txt" 2>&1 && { cat "$TMP/mpirun.txt"; fail "gpt_decode ran under mpirun -np 2"; }
[[ $(grep -c "gpt_decode is not an MPI program, but a launcher started it as one of 2 processes (OMPI_COMM_WORLD_SIZE=2)" "$TMP/mpirun.txt") -eq 2 ]] \
  || { cat "$TMP/mpirun.txt"; fail "each copy under mpirun -np 2 must refuse, naming OMPI_COMM_WORLD_SIZE=2"; }
[[ ! -e "$TMP/two.json" ]] || fail "a refused run wrote its --benchmark_out"
OMPI_COMM_WORLD_SIZE=1 "$DECODE" --preset=test-tiny --device=cpu --batch=1 --prompt=4 --generate=2 --steps=1 \
  --warmup_steps=0 --ceilings="$TMP/ceil.json" >"$TMP/one.txt" 2>&1 || { cat "$TMP/one.txt"; fail "one process of 1 refused"; }
# A filter that selects nothing is a failure too (harness/benchmark_main.h).
expect_exit 2 "" "${TINY[@]}" --prompt=2 --generate=2 --benchmark_filter=nothing_matches

# 3b. More than the host holds: refused before anything is allocated, naming the bytes needed
# and available (the KV cache of 100000 streams), not an abort.
expect_exit 2 "not enough host memory for gpt2" --preset=gpt2 --device=cpu --batch=100000
grep -q "KV cache .* available (" "$TMP/bad.txt" || { cat "$TMP/bad.txt"; fail "--batch=100000: no figures"; }

# 3c. A ceilings file whose bandwidth is cache-resident (`ceilings --sizes=quick`): never the
# bound; the run says so and measures the memory's bandwidth at start-up instead.
python3 "$FIXTURE" "$TMP/quick.json" --peak=1e12 --bandwidth=1e12 --cache_resident || fail "writing the quick ceilings file"
"$DECODE" --preset=test-tiny --device=cpu --threads=1 --warmup_steps=0 --steps=1 --prompt=2 --generate=2 \
  --ceilings="$TMP/quick.json" >"$TMP/quick.txt" 2>&1 || { cat "$TMP/quick.txt"; fail "run with a cache-resident ceilings file"; }
grep -q "^bandwidth .*measured at start-up: .*STREAM figure, 1000.0 GB/s, is cache-resident: not a memory bound, ignored" \
  "$TMP/quick.txt" || { cat "$TMP/quick.txt"; fail "the cache-resident bandwidth is not ignored with a note"; }

# 4. --help names the decode flags and leaves out the train-step ones.
"$DECODE" --help >"$TMP/help.txt" 2>&1 || fail "--help exited non-zero"
for f in --prompt --generate --batch_sweep --batch --preset --dtype --weights; do
  grep -q -- "  $f " "$TMP/help.txt" || { cat "$TMP/help.txt"; fail "--help does not list $f"; }
done
grep -q -- "  --lr " "$TMP/help.txt" && fail "--help lists the train-step flag --lr"
echo PASS
