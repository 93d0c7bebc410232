#!/usr/bin/env bash
# gpu_check.sh on a machine WITHOUT a GPU (CI, after `bazel test //...`; it needs Bazel and root,
# so it is a script rather than a test target):
#   tools/gpu/gpu_check_selftest.sh
#  1. builds the bundle with tools/gpu/gpu_bundle.sh --reuse-build (the workspace's own build, so
#     only linking and packing: well under a minute after `bazel build //...`), runs its
#     gpu_check.sh and asserts that the summary says "no CUDA device", that every step of the
#     bundle is there, in the planned order (gpt_step right after devices, then the GEMM micro
#     cases and the ceilings, ..., ddp_step last), FAIL or SKIPPED with a reason, never PASS, and
#     that the exit status is non-zero; the output folder holds at most 8 files (what a device
#     call returns): summary.txt, log.txt and results.tar.gz, which holds every step's output;
#  2. with a short deadline, a step whose limit would overrun it is SKIPPED, never run; a step
#     that ignores SIGTERM is killed 15 s later (timeout -k), and one that nothing ends (stuck in
#     the driver) is abandoned, after which every later step is SKIPPED ("GPU wedged after ...")
#     within 30 s; a dry run (GPU_CHECK_DRY_RUN=virtual: each step a sleep of its expected time on
#     a simulated clock) starts every step inside the default 420 s deadline, and a dry run with a
#     wedged step skips the rest;
#  3. the checks pass real passing output (a host gtest, CPU benchmark cases): the FAILs of 1. are
#     the missing device's, not checks that cannot pass; an --attention_impl=auto step that ran
#     the kernels fails where cuDNN is installed, and only there; the loss comparison of the
#     cuDNN and kernels steps passes equal losses and FAILs different ones (fixture logs); and a
#     device without a known peak (gpt_step under MLBENCH_TEST_NO_PEAK) still times its step,
#     MFU "n/a", and its JSON passes the check;
#  4. gpu_check's argument lists run on the CPU (//tools/gpu:gpu_check_args_test passes);
#  5. (checked first, on the bundle as built) the bundle and the working tree fit what a device call
#     carries (57 MiB), and the size check refuses them under a smaller limit;
#  6. the bundle's relocated Open MPI starts a 1-rank ddp_step in a root with nothing but the C
#     runtime (tools/gpu/bare_root_mpi_check.sh: no system-wide MPI, no ssh, not Debian).
# On a machine with a CUDA device it says so and exits 0 without asserting: there the bundle's
# steps may rightly pass. Exit status 1 with "FAIL: ..." on any broken assertion.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
start=$(date +%s)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gpu_check_selftest: FAIL: $*" >&2; exit 1; }
section() { echo "== $* ($(( $(date +%s) - start ))s so far)"; }

bash tools/gpu/gpu_bundle.sh --reuse-build "$tmp/bundle" > "$tmp/bundle.log" 2>&1 || { cat "$tmp/bundle.log"; fail "gpu_bundle.sh"; }
tail -3 "$tmp/bundle.log"
[[ -f "$tmp/bundle/bin.tar.gz" && ! -e "$tmp/bundle/bin" ]] || fail "the bundle must carry its binaries as bin.tar.gz"
# 5 (first: before anything is unpacked into the bundle). The bundle and the working tree fit what
# a device call carries, and the size check refuses them under a smaller limit.
bash tools/gpu/gpu_bundle.sh --check-travel "$tmp/bundle" || fail "the bundle and the tree are over the limit"
set +e
small="$(GPU_BUNDLE_TRAVEL_LIMIT_MB=1 bash tools/gpu/gpu_bundle.sh --check-travel "$tmp/bundle" 2>&1)"
rc=$?
set -e
(( rc == 1 )) && [[ "$small" == *"over the 1 MiB a device call may carry here"* ]] \
  || fail "the size check must refuse the bundle under a 1 MiB limit (exit $rc: $small)"
tar -C "$tmp/bundle" -xzf "$tmp/bundle/bin.tar.gz"  # as gpu_check.sh does first
if "$tmp/bundle/bin/tools_devices" 2>/dev/null | grep -q "^GPU "; then
  echo "gpu_check_selftest: this machine has a CUDA device; the self-test is for machines without one (nothing asserted)"
  exit 0
fi

section "1. gpu_check.sh without a GPU"
set +e
GPU_CHECK_DEPS="$tmp/deps" bash "$tmp/bundle/gpu_check.sh" "$tmp/out" > "$tmp/check.log" 2>&1
rc=$?
set -e
summary="$tmp/out/summary.txt"
cat "$summary"
[[ $rc -ne 0 ]] || fail "gpu_check.sh exited 0 without a GPU"
grep -q "no CUDA device" "$summary" || fail "the summary does not say 'no CUDA device'"
! grep -q '^PASS' "$summary" || fail "a step PASSED without a GPU: $(grep '^PASS' "$summary" | head -1)"
grep -Eq "^result: 0 PASS, [1-9][0-9]* FAIL or TIMEOUT" "$summary" || fail "the result line must count 0 PASS"
# Every step of the bundle has a verdict line, FAIL or SKIPPED, with a reason after the time, in
# the order of their value: the main result, the GEMM rates and ceilings, the kernels' step and
# the numerics against it, the other modes, decode, the tests, memcheck, ddp_step last.
steps=(devices gpt_step micro_matmul micro_ceilings gpt_step_kernels cudnn_vs_kernels_loss attention_train_shape
       gpt_step_llama gpt_step_graph gpt_step_kernels_graph gpt_decode cuda_rule_test)
for t in "$tmp"/bundle/bin/model_cuda_*test; do steps+=("$(basename "$t")"); done
steps+=(memcheck_ops memcheck_attention memcheck_gpt_step micro_elementwise ddp_step_1rank)
verdict_re='^(PASS|FAIL|SKIPPED|TIMEOUT|DRYRUN) +([a-z0-9_]+) +[0-9]+s \(at \+[0-9]+s\)'
for s in "${steps[@]}"; do
  grep -Eq "^(FAIL|SKIPPED|TIMEOUT) +$s +[0-9]+s \(at \+[0-9]+s\)  [^ ]" "$summary" || fail "no FAIL/SKIPPED line with a reason for step $s"
done
order="$(sed -En "s/$verdict_re.*/\2/p" "$summary" | tr '\n' ' ')"
[[ "$order" == "${steps[*]} " ]] || fail "the steps ran in another order: $order (planned: ${steps[*]})"
grep -Eq "^FAIL +model_cuda_.* skipped [0-9]+ test\(s\): no CUDA device" "$summary" || fail "a skipped gtest must FAIL with its reason"
grep -Eq "^FAIL +cudnn_vs_kernels_loss .*no first warm-up loss in gpt_step.log" "$summary" \
  || fail "the loss comparison must FAIL when the steps logged no loss"
# What comes back from a device call: at most 8 files; here exactly these three.
files="$(cd "$tmp/out" && find . -type f | sort | tr '\n' ' ')"
[[ "$files" == "./log.txt ./results.tar.gz ./summary.txt " ]] || fail "the output folder must hold log.txt, results.tar.gz and summary.txt only (at most 8 files come back), not: $files"
packed="$(tar -tzf "$tmp/out/results.tar.gz")" || fail "results.tar.gz does not unpack"
for s in "${steps[@]}"; do
  grep -Eq "^SKIPPED +$s " "$summary" && continue  # never ran (memcheck without compute-sanitizer)
  [[ "$s" == cudnn_vs_kernels_loss ]] && continue  # a comparison: no process, no log
  grep -qx "./steps/$s.log" <<< "$packed" || fail "results.tar.gz lacks steps/$s.log"
done
# The micro binaries register no CUDA case without a usable device: each CUDA-only step fails
# (it selects nothing, exit 2) and its verdict names the reason the binary gave.
for s in micro_matmul micro_elementwise micro_ceilings; do
  grep -Eq "^FAIL +$s .*exit 2; .*[0-9]+ CUDA case\(s\) not registered: no CUDA device: ." "$summary" \
    || fail "$s must FAIL (exit 2) naming the CUDA cases left out and why"
done
# The matmul filter selects every GEMM shape of the model's step (M = B*T = 12288): on the CPU
# binary's list of the CUDA names it would register, as the filter sees them.
for kn in K:768/N:2304 K:768/N:768 K:768/N:3072 K:3072/N:768 K:768/N:50304; do
  name="BM_Matmul/cuda/bf16/M:12288/$kn/manual_time"
  filter="$(sed -n "s/.*--benchmark_filter='\(cuda[^']*M:12288[^']*\)'.*/\1/p" "$tmp/bundle/gpu_check.sh")"
  [[ -n "$filter" ]] || fail "no M:12288 matmul filter in gpu_check.sh"
  grep -Eq "$filter" <<< "$name" || fail "the matmul filter leaves out the model's GEMM $name"
done

section "2. a step that would overrun the deadline is SKIPPED"
set +e
GPU_CHECK_DEADLINE_S=100 GPU_CHECK_DEPS="$tmp/deps" bash "$tmp/bundle/gpu_check.sh" "$tmp/out2" > /dev/null 2>&1
set -e
grep -Eq "^SKIPPED +gpt_step +0s \(at \+[0-9]+s\)  would overrun the 100s deadline: its limit is 90s" "$tmp/out2/summary.txt" \
  || { cat "$tmp/out2/summary.txt"; fail "gpt_step (limit 90 s) must be SKIPPED under a 100 s deadline"; }
! tar -tzf "$tmp/out2/results.tar.gz" | grep -q "steps/gpt_step.log" || fail "a skipped step must not run"

# shellcheck source=tools/gpu/gpu_check.sh
source tools/gpu/gpu_check.sh
section "2b. a step that ignores SIGTERM is killed; one that nothing ends is abandoned, and the GPU is wedged"
(
  W="$tmp/w"; mkdir -p "$W/steps"; LOG="$tmp/w.log"; SUMMARY="$tmp/w.summary"; RESULTS="$tmp/w.tar.gz"
  t0=$(date +%s); DEADLINE_S=100; KILL_GRACE_S=1; n_pass=0; n_fail=0; n_skip=0; n_dry=0; DRY_RUN=""; WEDGED=""
  LIMIT_S[term_ignored]=1; LIMIT_S[stuck]=1; LIMIT_S[after_1]=60; LIMIT_S[after_2]=60
  step term_ignored - bash -c 'trap "" TERM; sleep 20' > /dev/null
  [[ -z "$WEDGED" ]] || fail "a step that SIGKILL ended must not wedge the GPU"
  timeout() { sleep 20; }  # stands for a process stuck in the driver: no signal ends it
  step stuck - true > /dev/null
  unset -f timeout
  wedged_at=$(date +%s)
  step after_1 - true > /dev/null
  step after_2 - true > /dev/null
  judge after_3 check_loss_match /dev/null /dev/null > /dev/null
  (( $(date +%s) - wedged_at < 30 )) || fail "the steps after the wedge took $(( $(date +%s) - wedged_at ))s"
  (( $(date +%s) - t0 < 20 )) || fail "the hung steps held the check for $(( $(date +%s) - t0 ))s"
) || exit 1
grep -Eq "^TIMEOUT +term_ignored +[0-9]+s \(at \+[0-9]+s\)  its 1s limit, killed 1s after SIGTERM$" "$tmp/w.summary" \
  || { cat "$tmp/w.summary"; fail "a step that ignores SIGTERM must be killed (timeout -k)"; }
grep -Eq "^TIMEOUT +stuck +[0-9]+s \(at \+[0-9]+s\)  still running after its 1s limit's SIGTERM and SIGKILL .*abandoned" "$tmp/w.summary" \
  || { cat "$tmp/w.summary"; fail "a step that nothing ends must be abandoned"; }
for s in after_1 after_2 after_3; do
  grep -Eq "^SKIPPED +$s +0s \(at \+[0-9]+s\)  GPU wedged after stuck" "$tmp/w.summary" \
    || { cat "$tmp/w.summary"; fail "$s must be SKIPPED once the GPU is wedged"; }
done
! grep -q "Killed" "$tmp/w.summary" || fail "a shell's job notice in the summary"

section "2c. a dry run of the plan starts every step inside the default deadline"
set +e
GPU_CHECK_DRY_RUN=virtual GPU_CHECK_DEPS="$tmp/deps" bash "$tmp/bundle/gpu_check.sh" "$tmp/dry" > /dev/null 2>&1
rc=$?
set -e
cat "$tmp/dry/summary.txt"
(( rc == 0 )) || fail "the dry run exited $rc: a step was SKIPPED or timed out"
grep -Eq "^result: dry run, ${#steps[@]} steps started, 0 SKIPPED, 0 TIMEOUT; total [0-9]+s \(deadline 420s\)" "$tmp/dry/summary.txt" \
  || fail "the dry run must start all ${#steps[@]} steps inside the 420 s deadline"
order="$(sed -En "s/$verdict_re.*/\2/p" "$tmp/dry/summary.txt" | tr '\n' ' ')"
[[ "$order" == "${steps[*]} " ]] || fail "the dry run's order: $order"
last_start="$(sed -En 's/^DRYRUN +ddp_step_1rank +[0-9]+s \(at \+([0-9]+)s\).*/\1/p' "$tmp/dry/summary.txt")"
(( last_start + 60 + 15 <= 420 )) || fail "ddp_step starts at +${last_start}s: its limit would overrun the deadline"
echo "   every step started; the last, ddp_step_1rank, at +${last_start}s"
set +e
GPU_CHECK_DRY_RUN=virtual GPU_CHECK_TEST_WEDGE=gpt_step_kernels GPU_CHECK_DEPS="$tmp/deps" \
  bash "$tmp/bundle/gpu_check.sh" "$tmp/dry_wedge" > /dev/null 2>&1
set -e
grep -Eq "^TIMEOUT +gpt_step_kernels .*abandoned" "$tmp/dry_wedge/summary.txt" || fail "the dry run's wedged step"
n_wedged=$(grep -Ec "^SKIPPED .*GPU wedged after gpt_step_kernels" "$tmp/dry_wedge/summary.txt")
(( n_wedged == ${#steps[@]} - 5 )) || { cat "$tmp/dry_wedge/summary.txt"; fail "after a wedge every later step must be SKIPPED ($n_wedged)"; }

section "3. the checks pass real passing output"
bin="$(bazel info bazel-bin 2>/dev/null)"
[[ -x "$bin/accounting/mfu_test" ]] || bazel build //accounting:mfu_test > /dev/null 2>&1
"$bin/accounting/mfu_test" > "$tmp/gtest_pass.log" 2>&1 || fail "accounting/mfu_test"
why="$(check_gtest "$tmp/gtest_pass.log")"
[[ -z "$why" ]] || fail "check_gtest rejects a passing gtest: $why"
"$bin/accounting/mfu_test" --gtest_filter=NoSuchTest > "$tmp/gtest_none.log" 2>&1 || true
[[ -n "$(check_gtest "$tmp/gtest_none.log")" ]] || fail "check_gtest accepts a run with no test"
"$tmp/bundle/bin/micro_matmul" --benchmark_filter='cpu/.*fp32/M:64/K:64/N:64/' --benchmark_min_time=0.01 \
  --benchmark_out="$tmp/cpu.json" --benchmark_out_format=json > "$tmp/cpu.log" 2>&1 || { cat "$tmp/cpu.log"; fail "CPU matmul case"; }
why="$(check_bench_json "$tmp/cpu.json" "$tmp/cpu.log")"
[[ -z "$why" ]] || fail "check_bench_json rejects CPU cases that ran: $why"
# A run that left its CUDA cases out: the JSON is empty, and the reason comes from the log.
: > "$tmp/none.json"
echo "matmul: 56 CUDA case(s) not registered: no CUDA device: test reason" > "$tmp/none.log"
why="$(check_bench_json "$tmp/none.json" "$tmp/none.log")"
[[ "$why" == *"56 CUDA case(s) not registered: no CUDA device: test reason"* ]] \
  || fail "check_bench_json does not name the cases left out: $why"
# An auto step that ran the kernels: FAIL where cuDNN is installed, with the run's own reason;
# fine where it is not, and when it ran cuDNN.
sed 's/^\( *\)"context": {$/&\n\1  "mlbench_attention_impl": "kernels",\n\1  "mlbench_attention_choice": "attention_impl: kernels (auto: test reason)",/' \
  "$tmp/cpu.json" > "$tmp/auto_kernels.json"
grep -q '"mlbench_attention_impl": "kernels"' "$tmp/auto_kernels.json" || fail "the auto fixture (no context line in the CPU JSON?)"
sed 's/"mlbench_attention_impl": "kernels"/"mlbench_attention_impl": "cudnn"/' "$tmp/auto_kernels.json" > "$tmp/auto_cudnn.json"
why="$(CUDNN=/opt/cudnn/libcudnn.so.9 check_auto_step "$tmp/auto_kernels.json" "$tmp/cpu.log")"
[[ "$why" == "auto ran 'kernels' attention although cuDNN is here (/opt/cudnn/libcudnn.so.9): attention_impl: kernels (auto: test reason)" ]] \
  || fail "check_auto_step must fail auto on the kernels where cuDNN is: '$why'"
why="$(CUDNN=/opt/cudnn/libcudnn.so.9 check_auto_step "$tmp/auto_cudnn.json" "$tmp/cpu.log")"
[[ -z "$why" ]] || fail "check_auto_step rejects an auto run on cuDNN: $why"
why="$(CUDNN="no libcudnn.so.9 found" check_auto_step "$tmp/auto_kernels.json" "$tmp/cpu.log")"
[[ -z "$why" ]] || fail "check_auto_step rejects the kernels where there is no cuDNN: $why"

# The numerics at the real shape: the cuDNN and kernels steps' first warm-up losses (fixture logs
# in gpt_step's own format) agree to 1e-3 relative, or the comparison FAILs naming both.
loss_log() {  # FILE LOSS: a gpt_step log whose first warm-up step has LOSS
  printf 'gpt_step: building gpt2 ...\nstep   1/3   warm-up | loss %s |     61.20 ms |   200784.3 tokens/s | mfu n/a\nstep   2/3   warm-up | loss 9.8000 |     30.00 ms |   409600.0 tokens/s | mfu n/a\n' "$2" > "$1"
}
loss_log "$tmp/l_a.log" 10.9461; loss_log "$tmp/l_b.log" 10.9470; loss_log "$tmp/l_c.log" 10.9700
loss_log "$tmp/l_nan.log" nan
[[ "$(first_warmup_loss "$tmp/l_a.log")" == 10.9461 ]] || fail "first_warmup_loss reads '$(first_warmup_loss "$tmp/l_a.log")'"
why="$(check_loss_match "$tmp/l_a.log" "$tmp/l_b.log")"
[[ -z "$why" ]] || fail "check_loss_match rejects losses 8e-5 apart: $why"
why="$(check_loss_match "$tmp/l_c.log" "$tmp/l_a.log")"
[[ "$why" == "first warm-up loss 10.9700 (cuDNN) vs 10.9461 (kernels): relative difference 0.00218 > 0.001" ]] \
  || fail "check_loss_match must FAIL losses 2e-3 apart: '$why'"
why="$(check_loss_match "$tmp/l_nan.log" "$tmp/l_a.log")"
[[ "$why" == *"not both finite numbers"* ]] || fail "check_loss_match must FAIL a NaN loss: '$why'"
why="$(check_loss_match "$tmp/none.log" "$tmp/l_a.log")"
[[ "$why" == "no first warm-up loss in none.log" ]] || fail "check_loss_match must FAIL a log without a loss: '$why'"
# A device whose name has no datasheet peak (a MIG slice): the step is timed, MFU is n/a, and the
# JSON passes the check (gpt_step's CPU path under the test hook that makes the device unknown).
MLBENCH_TEST_NO_PEAK="NVIDIA H200 MIG 1g.18gb" "$tmp/bundle/bin/macro_gpt_step" --preset=test-tiny --batch=2 \
  --seq=16 --warmup_steps=1 --steps=2 --cpu_gemm=onednn --benchmark_out="$tmp/nopeak.json" \
  --benchmark_out_format=json > "$tmp/nopeak.log" 2>&1 || { tail -20 "$tmp/nopeak.log"; fail "gpt_step with no known peak"; }
grep -q "^MFU           n/a: no peak for 'NVIDIA H200 MIG 1g.18gb'" "$tmp/nopeak.log" \
  || { tail -20 "$tmp/nopeak.log"; fail "gpt_step with no known peak must say MFU n/a, naming the device"; }
grep -Eq "^step time     median [0-9.]+ ms" "$tmp/nopeak.log" || fail "gpt_step with no known peak printed no step time"
grep -Eq "^tokens/s      [0-9.]+ tokens/s" "$tmp/nopeak.log" || fail "gpt_step with no known peak printed no tokens/s"
! grep -q '"mfu":' "$tmp/nopeak.json" || fail "the JSON of a run without a peak holds an mfu counter"
why="$(check_bench_json "$tmp/nopeak.json" "$tmp/nopeak.log")"
[[ -z "$why" ]] || fail "check_bench_json rejects a timed run without a peak: $why"

section "4. gpu_check's argument lists run on the CPU"
bazel test //tools/gpu:gpu_check_args_test > "$tmp/args_test.log" 2>&1 \
  || { tail -30 "$tmp/args_test.log"; fail "//tools/gpu:gpu_check_args_test"; }

section "6. the bundle's Open MPI off the build machine (a root with the C runtime only)"
bash tools/gpu/bare_root_mpi_check.sh "$tmp/bundle" > "$tmp/bare.log" 2>&1 || { cat "$tmp/bare.log"; fail "bare_root_mpi_check.sh"; }
tail -2 "$tmp/bare.log"
echo "gpu_check_selftest: PASS ($(( $(date +%s) - start ))s)"
