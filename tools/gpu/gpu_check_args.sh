# The argument lists tools/gpu/gpu_check.sh gives gpt_step, gpt_decode and ddp_step on the GPU
# machine, in one place: gpu_check.sh sources this file (the bundle carries it next to it), and
# tools/gpu/gpu_check_args_test.sh runs every list on the CPU, so that a list a binary refuses
# fails in CI and not in the one device call of a lease. (The memcheck list once asked for
# --seq=32 with test-tiny's block of 16: gpt_step refused it, and memcheck could never pass.)
# The output flags (--benchmark_out, --json_out) are gpu_check.sh's own, added there.

# gpt_step: GPT-2 124M, B=12, T=1024, bf16 (the main result), in four modes, one JSON each; then
# the Llama family's step at the same shape (llama-124m: RMSNorm, RoPE, SwiGLU, 4 K/V heads).
GPT_STEP_ARGS=(--device=cuda --dtype=bf16 --batch=12 --seq=1024 --warmup_steps=3 --steps=20
               --benchmark_out_format=json)
# NAME:EXTRA FLAGS (space-separated): auto is cuDNN after its start-up self-check, else the
# kernels; --cuda_graph captures the step once (checked against an uncaptured step), then replays.
GPT_STEP_MODES=(
  "gpt_step:--attention_impl=auto"
  "gpt_step_graph:--attention_impl=auto --cuda_graph"
  "gpt_step_kernels:--attention_impl=kernels"
  "gpt_step_kernels_graph:--attention_impl=kernels --cuda_graph"
  "gpt_step_llama:--attention_impl=auto --preset=llama-124m"
)
# gpt_decode: GPT-2 124M bf16, 128 prompt + 128 new tokens, B = 1 .. 64, against the bandwidth bound.
GPT_DECODE_ARGS=(--device=cuda --dtype=bf16 --prompt=128 --generate=128 --batch_sweep=64 --warmup_steps=1
                 --steps=3 --benchmark_out_format=json)
# compute-sanitizer's memcheck of one small step on cuDNN's attention (gpu_check.sh swaps in the
# kernels where the machine has no cuDNN): test-mini (head size 32, which cuDNN takes; test-tiny's
# 8 it may refuse), bf16 (cuDNN's attention is bf16 only), a seq within its block of 256.
MEMCHECK_ARGS=(--device=cuda --dtype=bf16 --attention_impl=cudnn --preset=test-mini --batch=2 --seq=64
               --warmup_steps=0 --steps=1 --benchmark_min_time=0)
# ddp_step on one rank (no mpirun): the DDP path's per-rank MFU on one GPU.
DDP_STEP_ARGS=(--device=cuda --dtype=bf16 --batch=12 --seq=1024 --steps=10 --warmup_steps=3)
