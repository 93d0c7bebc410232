#!/usr/bin/env bash
# gpu_check.sh on a machine WITHOUT a GPU (CI, after `bazel test //...`; it needs Bazel, so it is
# a script rather than a test target):
#   tools/gpu/gpu_check_selftest.sh
#  1. builds the bundle with tools/gpu/gpu_bundle.sh --reuse-build (the workspace's own build, so
#     only linking and packing: well under a minute after `bazel build //...`), runs its
#     gpu_check.sh and asserts that the summary says "no CUDA device", that every step of the
#     bundle is there and is FAIL or SKIPPED with a reason, never PASS, that gpt_step comes right
#     after devices, and that the exit status is non-zero;
#  2. with a short deadline, a step whose limit would overrun it is SKIPPED, never run; a step
#     that ignores SIGTERM is killed 15 s later (timeout -k), and one that nothing ends (stuck in
#     the driver) is abandoned, so the check ends inside its deadline;
#     It also asserts that the output folder holds at most 8 files (what a device call returns):
#     summary.txt, log.txt and results.tar.gz, which holds every step's whole output;
#  3. the checks pass real passing output (a host gtest, CPU benchmark cases): the FAILs of 1. are
#     the missing device's, not checks that cannot pass; and an --attention_impl=auto step that
#     ran the kernels fails where cuDNN is installed, and only there;
#  4. gpu_check's argument lists run on the CPU (//tools/gpu:gpu_check_args_test passes).
# On a machine with a CUDA device it says so and exits 0 without asserting: there the bundle's
# steps may rightly pass. Exit status 1 with "FAIL: ..." on any broken assertion.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
start=$(date +%s)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gpu_check_selftest: FAIL: $*" >&2; exit 1; }

bash tools/gpu/gpu_bundle.sh --reuse-build "$tmp/bundle" > "$tmp/bundle.log" 2>&1 || { cat "$tmp/bundle.log"; fail "gpu_bundle.sh"; }
tail -3 "$tmp/bundle.log"
[[ -f "$tmp/bundle/bin.tar.gz" && ! -e "$tmp/bundle/bin" ]] || fail "the bundle must carry its binaries as bin.tar.gz"
tar -C "$tmp/bundle" -xzf "$tmp/bundle/bin.tar.gz"  # as gpu_check.sh does first
if "$tmp/bundle/bin/tools_devices" 2>/dev/null | grep -q "^GPU "; then
  echo "gpu_check_selftest: this machine has a CUDA device; the self-test is for machines without one (nothing asserted)"
  exit 0
fi

echo "== 1. gpu_check.sh without a GPU"
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
# Every step of the bundle has a verdict line, FAIL or SKIPPED, with a reason after the time.
steps=(devices gpt_step gpt_step_graph gpt_step_kernels gpt_step_kernels_graph gpt_decode cuda_rule_test memcheck_gpt_step ddp_step_1rank micro_ceilings micro_matmul micro_elementwise)
for t in "$tmp"/bundle/bin/model_cuda_*test; do steps+=("$(basename "$t")"); done
for s in "${steps[@]}"; do
  grep -Eq "^(FAIL|SKIPPED|TIMEOUT) +$s +[0-9]+s  [^ ]" "$summary" || fail "no FAIL/SKIPPED line with a reason for step $s"
done
[[ $(grep -Ec '^(PASS|FAIL|SKIPPED|TIMEOUT) ' "$summary") -eq ${#steps[@]} ]] || fail "steps in the summary: expected ${#steps[@]}"
[[ "$(grep -E '^(PASS|FAIL|SKIPPED|TIMEOUT) ' "$summary" | awk 'NR<=2{print $2}' | tr '\n' ' ')" == "devices gpt_step " ]] \
  || fail "gpt_step must run right after devices"
grep -Eq "^FAIL +model_cuda_.* skipped [0-9]+ test\(s\): no CUDA device" "$summary" || fail "a skipped gtest must FAIL with its reason"
# What comes back from a device call: at most 8 files; here exactly these three.
files="$(cd "$tmp/out" && find . -type f | sort | tr '\n' ' ')"
[[ "$files" == "./log.txt ./results.tar.gz ./summary.txt " ]] || fail "the output folder must hold log.txt, results.tar.gz and summary.txt only (at most 8 files come back), not: $files"
packed="$(tar -tzf "$tmp/out/results.tar.gz")" || fail "results.tar.gz does not unpack"
for s in "${steps[@]}"; do
  [[ "$s" == memcheck_gpt_step ]] && continue  # SKIPPED without compute-sanitizer: it never ran
  grep -qx "./steps/$s.log" <<< "$packed" || fail "results.tar.gz lacks steps/$s.log"
done
# The micro binaries register no CUDA case without a usable device: each CUDA-only step fails
# (it selects nothing, exit 2) and its verdict names the reason the binary gave.
for s in micro_matmul micro_elementwise micro_ceilings; do
  grep -Eq "^FAIL +$s .*exit 2; .*[0-9]+ CUDA case\(s\) not registered: no CUDA device: ." "$summary" \
    || fail "$s must FAIL (exit 2) naming the CUDA cases left out and why"
done

echo "== 2. a step that would overrun the deadline is SKIPPED"
set +e
GPU_CHECK_DEADLINE_S=100 GPU_CHECK_DEPS="$tmp/deps" bash "$tmp/bundle/gpu_check.sh" "$tmp/out2" > /dev/null 2>&1
set -e
grep -Eq "^SKIPPED +gpt_step +0s  would overrun the 100s deadline: its limit is 120s" "$tmp/out2/summary.txt" \
  || { cat "$tmp/out2/summary.txt"; fail "gpt_step (limit 120 s) must be SKIPPED under a 100 s deadline"; }
! tar -tzf "$tmp/out2/results.tar.gz" | grep -q "steps/gpt_step.log" || fail "a skipped step must not run"

# shellcheck source=tools/gpu/gpu_check.sh
source tools/gpu/gpu_check.sh
echo "== 2b. a step that ignores SIGTERM is killed; one that nothing ends is abandoned"
(
  W="$tmp/w"; mkdir -p "$W/steps"; LOG="$tmp/w.log"; SUMMARY="$tmp/w.summary"; RESULTS="$tmp/w.tar.gz"
  t0=$(date +%s); DEADLINE_S=100; KILL_GRACE_S=1; n_pass=0; n_fail=0; n_skip=0
  step term_ignored 1 - bash -c 'trap "" TERM; sleep 20' > /dev/null
  timeout() { sleep 20; }  # stands for a process stuck in the driver: no signal ends it
  step stuck 1 - true > /dev/null
  (( $(date +%s) - t0 < 15 )) || fail "the hung steps held the check for $(( $(date +%s) - t0 ))s"
) || exit 1
grep -Eq "^TIMEOUT +term_ignored +[0-9]+s  its 1s limit, killed 1s after SIGTERM$" "$tmp/w.summary" \
  || { cat "$tmp/w.summary"; fail "a step that ignores SIGTERM must be killed (timeout -k)"; }
grep -Eq "^TIMEOUT +stuck +[0-9]+s  still running after its 1s limit's SIGTERM and SIGKILL .*abandoned$" "$tmp/w.summary" \
  || { cat "$tmp/w.summary"; fail "a step that nothing ends must be abandoned"; }
! grep -q "Killed" "$tmp/w.summary" || fail "a shell's job notice in the summary"

echo "== 3. the checks pass real passing output"
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

echo "== 4. gpu_check's argument lists run on the CPU"
bazel test //tools/gpu:gpu_check_args_test > "$tmp/args_test.log" 2>&1 \
  || { tail -30 "$tmp/args_test.log"; fail "//tools/gpu:gpu_check_args_test"; }
echo "gpu_check_selftest: PASS ($(( $(date +%s) - start ))s)"
