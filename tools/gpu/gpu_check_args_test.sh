#!/usr/bin/env bash
# Every argument list tools/gpu/gpu_check.sh gives gpt_step, gpt_decode and ddp_step on the GPU
# machine (tools/gpu/gpu_check_args.sh), run here on the CPU: a list that a binary refuses fails
# this test, not the one device call of a lease.
#   gpu_check_args_test.sh GPU_CHECK_ARGS GPT_STEP GPT_DECODE DDP_STEP
# What changes for the CPU, and only that:
#   --device=cuda        -> --device=cpu
#   --dtype=bf16         -> --dtype=fp32 (the CPU trains in bf16 only where it has bf16 units;
#                           fp32 runs on every CI machine)
#   --attention_impl=X, --cuda_graph -> left out: the CUDA model's (refused on the CPU; their own
#                           rules, cudnn only in bf16 and two warm-up steps for a graph, are
#                           step_options_test's, against a fake GPU)
#   --batch, --steps, --warmup_steps, --batch_sweep, --generate -> 1, 1, 0, 1, 4: sizes that set
#                           only how long the run takes on the CPU.
#   gpt_step and ddp_step get --cpu_gemm=onednn added: one library's best of 3 calls per GEMM
#                           shape instead of auto's 3 x 5 (at seq 1024 the choice alone took a
#                           minute on a busy 2-core VM); //macro:gpt_step_test covers auto.
# Everything else (preset, seq, prompt, the output flags) is passed as gpu_check.sh passes it:
# a --seq longer than the preset's block, say, is refused here as it would be there.
set -u
ARGS="$1"; GPT_STEP="$2"; GPT_DECODE="$3"; DDP_STEP="$4"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=tools/gpu/gpu_check_args.sh
source "$ARGS"

to_cpu() {  # ARGS...: the list for the CPU, one argument per line
  local a
  for a in "$@"; do
    case "$a" in
      --device=cuda) echo --device=cpu ;;
      --dtype=bf16) echo --dtype=fp32 ;;
      --attention_impl=* | --cuda_graph) ;;
      --batch=*) echo --batch=1 ;;
      --steps=*) echo --steps=1 ;;
      --warmup_steps=*) echo --warmup_steps=0 ;;
      --batch_sweep=*) echo --batch_sweep=1 ;;
      --generate=*) echo --generate=4 ;;
      *) echo "$a" ;;
    esac
  done
}

n=0
run() {  # NAME BINARY ARGS...: the CUDA list, mapped to the CPU, must run and exit 0
  local name="$1" bin="$2"; shift 2
  [[ " $* " == *" --device=cuda "* ]] || fail "$name: gpu_check's list has no --device=cuda: $*"
  local -a cpu
  mapfile -t cpu < <(to_cpu "$@")
  echo "== $name: $(basename "$bin") ${cpu[*]}"
  local t0=$SECONDS
  if ! "$bin" "${cpu[@]}" > "$TMP/$name.log" 2>&1; then
    tail -20 "$TMP/$name.log"
    fail "$name: $(basename "$bin") refused gpu_check's list (on the CPU: ${cpu[*]}); gpu_check's: $*"
  fi
  echo "   ran in $(( SECONDS - t0 )) s"
  n=$((n + 1))
}

[[ ${#GPT_STEP_MODES[@]} -eq 5 ]] || fail "expected gpt_step's five modes, got ${#GPT_STEP_MODES[@]}"
seen=""
for mode in "${GPT_STEP_MODES[@]}"; do
  name="${mode%%:*}"; read -r -a extra <<< "${mode#*:}"
  # GPT-2's four modes differ only in CUDA flags, so they map to one CPU list: it runs once, and
  # each is checked to map to it. The Llama mode (a --preset of its own) runs on its own.
  list="$(to_cpu "${GPT_STEP_ARGS[@]}" "${extra[@]}" | tr '\n' ' ')"
  if [[ " ${extra[*]} " != *" --preset="* ]]; then
    [[ -z "$seen" || "$seen" == "$list" ]] || fail "$name maps to another CPU list: $list (not $seen)"
    [[ -n "$seen" ]] && continue
    seen="$list"
  fi
  run "$name" "$GPT_STEP" "${GPT_STEP_ARGS[@]}" "${extra[@]}" --cpu_gemm=onednn --benchmark_out="$TMP/$name.json"
  grep -q '"mlbench_attention_impl": "cpu"' "$TMP/$name.json" || fail "$name: no JSON with its attention record"
done
grep -q '"mlbench_model": "llama-124m' "$TMP/gpt_step_llama.json" || fail "gpt_step_llama: not a llama-124m run"
run gpt_decode "$GPT_DECODE" "${GPT_DECODE_ARGS[@]}" --benchmark_out="$TMP/gpt_decode.json"
[[ -s "$TMP/gpt_decode.json" ]] || fail "gpt_decode wrote no JSON"
run memcheck_gpt_step "$GPT_STEP" "${MEMCHECK_ARGS[@]}"
run ddp_step_1rank "$DDP_STEP" "${DDP_STEP_ARGS[@]}" --cpu_gemm=onednn --json_out="$TMP/ddp.json"
[[ -s "$TMP/ddp.json" ]] || fail "ddp_step wrote no --json_out"

# The mapping cannot hide a refusal: a --seq longer than the preset's block (as memcheck's list
# once had: --seq=32 against test-tiny's 16) is refused on the CPU too.
bad=("${MEMCHECK_ARGS[@]/--seq=64/--seq=512}")
mapfile -t cpu < <(to_cpu "${bad[@]}")
if "$GPT_STEP" "${cpu[@]}" > "$TMP/bad.log" 2>&1; then fail "a --seq longer than the block ran: ${cpu[*]}"; fi
grep -q -- "--seq" "$TMP/bad.log" || { cat "$TMP/bad.log"; fail "the refusal does not name --seq"; }
echo "PASS: $n argument lists ran on the CPU"
