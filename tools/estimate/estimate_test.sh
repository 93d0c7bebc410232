#!/bin/bash
# Runs //tools:estimate: each command prints its figures and a `result:` line; the seeds'
# worked examples come out; bad values exit non-zero with a message naming the flag.
# Usage: estimate_test.sh PATH_TO_ESTIMATE
set -u
EST="$1"
fails=0
out=""
err=""

run() {  # run ARGS...: sets out, err, rc
  out="$("$EST" "$@" 2>"${TEST_TMPDIR:-/tmp}/estimate_err")"
  rc=$?
  err="$(cat "${TEST_TMPDIR:-/tmp}/estimate_err")"
}

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

expect_ok() {  # expect_ok PATTERN ARGS...: exit 0 and stdout matches PATTERN (grep -E)
  local pat="$1"; shift
  run "$@"
  if [[ $rc -ne 0 ]]; then fail "estimate $* exited $rc: $err"; return; fi
  if ! grep -qE -- "$pat" <<<"$out"; then fail "estimate $*: stdout lacks /$pat/:"$'\n'"$out"; fi
  if ! grep -qE '^result: ' <<<"$out"; then fail "estimate $*: no result: line"; fi
}

expect_error() {  # expect_error PATTERN ARGS...: non-zero exit and stderr matches PATTERN
  local pat="$1"; shift
  run "$@"
  if [[ $rc -eq 0 ]]; then fail "estimate $* exited 0, expected an error"; return; fi
  if ! grep -qE -- "$pat" <<<"$err"; then fail "estimate $*: stderr lacks /$pat/: $err"; fi
}

# Seed 003: 7B on 8 A100 at 12000 tokens/s = 20.2% (low).
expect_ok 'result: mfu=0\.2019.* band=low' mfu --params=7e9 --tokens_per_second=12000 --devices=8 --peak_flops=312e12
expect_ok 'MFU: 20\.19%' mfu --params=7e9 --tokens_per_second=12000 --devices=8 --peak_flops=312e12
# An MFU outside (0, 1] is refused, never printed as "inf%" or "250%".
expect_error 'outside \(0, 1\]' mfu --params=1e300 --tokens_per_second=1e300 --devices=1 --peak_flops=312e12
expect_error 'outside \(0, 1\]' mfu --params=7e9 --tokens_per_second=12000 --devices=1 --peak_flops=1e12
expect_ok 'peak_kind=datasheet peak=NVIDIA_A100_SXM4_80GB' mfu --params=7e9 --tokens_per_second=12000 --devices=8 --gpu=A100 --dtype=bf16
# Seed 001: 1.5B at 40000 tokens/s on one H100 = 36%.
expect_ok 'result: mfu=0\.363' mfu --params=1.5e9 --tokens_per_second=40000 --devices=1 --gpu="NVIDIA H100 80GB HBM3"
# Seed 003: 7B, 1T tokens, 64 A100: 54 days at 45%, 97 at 25%.
expect_ok 'result: days=54\.09' train-time --params=7e9 --tokens=1e12 --devices=64 --mfu=0.45 --peak_flops=312e12
expect_ok 'result: days=97\.3' train-time --params=7e9 --tokens=1e12 --devices=64 --mfu=0.25 --gpu=A100
# Seed 001: 70B, 15T tokens, 1024 H100 at 50% = 144 days.
expect_ok 'result: days=143\.9' train-time --params=70e9 --tokens=15e12 --devices=1024 --mfu=0.5 --gpu=H100
# Seed 003: 7B bf16 decode on A100 (2 TB/s) = 143 tokens/s.
expect_ok 'result: tokens_per_second=142\.857' decode-bound --params=7e9 --bytes_per_param=2 --bandwidth=2e12
expect_ok 'result: tokens_per_second=1[0-9]{3}' decode-bound --params=7e9 --bytes_per_param=0.5 --gpu="NVIDIA H200"
# Seed 003: ridge 156, intensity 2 tops out at 4 TFLOP/s.
expect_ok 'result: intensity=2 ridge=156 bound_flops_per_s=4e\+12 attainable_flops_per_s=4e\+12 bound=memory' roofline --flops=2e9 --bytes=1e9 --peak_flops=312e12 --bandwidth=2e12
expect_ok 'bound=compute' roofline --flops=1.4e11 --bytes=1e8 --gpu=H200 --dtype=bf16
# GPT-2 small: 124,439,808 parameters with wpe; nanoGPT vocab without wpe 123,689,472.
expect_ok 'result: params=124439808 ' gpt --layers=12 --heads=12 --width=768 --vocab=50257 --block=1024
expect_ok 'params_without_wpe=123689472 .*train_flops_per_token_full=.*train_flops_per_token_causal_halved=' gpt --layers=12 --heads=12 --width=768 --vocab=50304 --block=1024 --batch=12
expect_ok 'seq=256 batch=4 tokens_per_step=1024' gpt --layers=12 --heads=12 --width=768 --vocab=50304 --block=1024 --seq=256 --batch=4 --bias=false
# Llama 3 8B at T=8192 (--preset): Meta's 8,030,261,248 parameters; FLOPs per token in both
# conventions, named (torchtitan's full, Megatron-LM's causal half); AdamW's training memory.
expect_ok 'result: params=8030261248 .*train_flops_per_token_full=57914449920 .*train_flops_per_token_causal_halved=51471998976 .*train_state_bytes=128484179968 ' gpt --preset=llama3-8b --seq=8192
expect_ok 'attention full .*torchtitan' gpt --preset=llama3-8b --seq=8192
expect_ok 'attention causal-halved .*Megatron-LM' gpt --preset=llama3-8b --seq=8192
expect_ok 'weights  32\.12 GB  \(fp32, 4 B x 8030261248\)' gpt --preset=llama3-8b
expect_ok 'model=llama-124m-custom' gpt --preset=llama-124m --kv_heads=12
# Scientific notation for integers too.
expect_ok 'devices=8 ' mfu --params=7e9 --tokens_per_second=1.2e4 --devices=8e0 --peak_flops=3.12e14

# Help for each command.
for c in mfu train-time decode-bound roofline gpt; do
  run "$c" --help
  [[ $rc -eq 0 ]] && grep -q "usage: estimate $c" <<<"$out" || fail "estimate $c --help: rc=$rc out=$out"
done
run --help
[[ $rc -eq 0 ]] && grep -q "train-time" <<<"$out" || fail "estimate --help"

# Bad values: non-zero exit, message names the flag.
expect_error '--params=-7e9 is invalid' mfu --params=-7e9 --tokens_per_second=12000 --devices=8 --gpu=A100
expect_error '--devices=0 is invalid' mfu --params=7e9 --tokens_per_second=12000 --devices=0 --gpu=A100
expect_error '--devices=2\.5 is invalid' mfu --params=7e9 --tokens_per_second=12000 --devices=2.5 --gpu=A100
expect_error '--mfu=1\.5 is invalid.*\(0, 1\]' train-time --params=7e9 --tokens=1e12 --devices=64 --mfu=1.5 --gpu=A100
expect_error '--mfu is required' train-time --params=7e9 --tokens=1e12 --devices=64 --gpu=A100
expect_error "--gpu: unknown device 'RTX 9999'.*--peak_flops.*--ceilings" mfu --params=7e9 --tokens_per_second=12000 --devices=8 --gpu="RTX 9999"
expect_error '--gpu: .*has no fp8' mfu --params=7e9 --tokens_per_second=12000 --devices=8 --gpu=A100 --dtype=fp8
expect_error "--dtype: unknown dtype 'int8'" mfu --params=7e9 --tokens_per_second=12000 --devices=8 --gpu=A100 --dtype=int8
expect_error 'a peak is required' mfu --params=7e9 --tokens_per_second=12000 --devices=8
expect_error 'only one source' mfu --params=7e9 --tokens_per_second=12000 --devices=8 --gpu=A100 --peak_flops=1e12
expect_error '--tokens_per_second is required' mfu --params=7e9 --devices=8 --gpu=A100
expect_error '--params=abc is invalid' decode-bound --params=abc --bytes_per_param=2 --gpu=A100
expect_error '--bandwidth is required' roofline --flops=1 --bytes=1 --peak_flops=1e12
expect_error '--bytes=0 is invalid' roofline --flops=1 --bytes=0 --gpu=A100
expect_error '--heads=7 is invalid' gpt --layers=12 --heads=7 --width=768 --vocab=50257 --block=1024
expect_error '--seq=2048 is invalid.*--block=1024' gpt --layers=12 --heads=12 --width=768 --vocab=50257 --block=1024 --seq=2048
expect_error "--preset: unknown model preset 'nope': allowed are gpt2" gpt --preset=nope
expect_error "--kv_heads=5 is invalid: does not divide llama-124m's heads=12" gpt --preset=llama-124m --kv_heads=5
expect_error '--heads is required without --preset' gpt --layers=12
expect_error '--mfu is not used by this command' mfu --params=7e9 --tokens_per_second=1 --devices=1 --gpu=A100 --mfu=0.5
expect_error "unknown command 'mfuu'" mfuu
expect_error "ceilings file '/nonexistent.json'" mfu --params=7e9 --tokens_per_second=1 --devices=1 --ceilings=/nonexistent.json

# Measured ceilings as the peak.
C="${TEST_TMPDIR:-/tmp}/ceilings.json"
cat >"$C" <<'JSON'
{"machine": "test cpu", "peak_flops": {"fp32": 2e11}, "bandwidth_bytes_per_s": 2.5e10, "method": "test", "date": "2024-01-01"}
JSON
expect_ok 'result: mfu=0\.3 .*peak_kind=measured' mfu --params=1e6 --tokens_per_second=1e4 --devices=1 --ceilings="$C" --dtype=fp32
expect_ok 'result: intensity=0\.125 ridge=8 ' roofline --flops=1e6 --bytes=8e6 --ceilings="$C" --dtype=fp32
expect_ok 'result: tokens_per_second=12\.5 ' decode-bound --params=1e9 --bytes_per_param=2 --ceilings="$C"
expect_error '--ceilings: .*no bf16' mfu --params=1e6 --tokens_per_second=1e4 --devices=1 --ceilings="$C"
# A file written before the memory roofs: decode-bound's read roof falls back to the copy, saying so;
# a kind asked for by name is refused.
expect_ok 'bandwidth source: STREAM copy \(the file has no read memory roof' decode-bound --params=1e9 --bytes_per_param=2 --ceilings="$C"
expect_error "--traffic=read: '.*' has no read memory roof" decode-bound --params=1e9 --bytes_per_param=2 --ceilings="$C" --traffic=read
# The roofs per kind of traffic: decode-bound takes the read roof, roofline the kind asked for.
R="${TEST_TMPDIR:-/tmp}/roofs.json"
cat >"$R" <<'JSON'
{"machine": "test cpu", "peak_flops": {"fp32": 2e11}, "bandwidth_bytes_per_s": 2.5e10, "method": "test", "date": "2024-01-01",
 "memory_roofs_bytes_per_s": {"read": 4e10, "write_nt": 2e10, "copy": 2.5e10, "triad": 2.7e10, "in_place": 3.8e10}}
JSON
expect_ok 'result: tokens_per_second=20 .*bandwidth=4e\+10 .*traffic=read' decode-bound --params=1e9 --bytes_per_param=2 --ceilings="$R"
expect_ok 'result: tokens_per_second=19 .*traffic=in_place' decode-bound --params=1e9 --bytes_per_param=2 --ceilings="$R" --traffic=in_place
expect_ok 'result: intensity=0\.125 ridge=8 .*traffic=copy' roofline --flops=1e6 --bytes=8e6 --ceilings="$R" --dtype=fp32
expect_ok 'result: intensity=0\.125 ridge=5\.26316 .*bandwidth=3\.8e\+10 .*traffic=in_place' roofline --flops=1e6 --bytes=8e6 --ceilings="$R" --dtype=fp32 --traffic=in_place
expect_error '--traffic=stream is invalid: one of read, write_nt, copy, triad, in_place' roofline --flops=1 --bytes=1 --ceilings="$R" --dtype=fp32 --traffic=stream
expect_error '--traffic=read chooses a memory roof of a --ceilings file' decode-bound --params=1e9 --bytes_per_param=2 --bandwidth=1e10 --traffic=read

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all estimate checks passed"
