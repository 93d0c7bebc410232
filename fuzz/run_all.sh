#!/usr/bin/env bash
# Builds every fuzz target with clang + libFuzzer + ASan + UBSan (--config=fuzz, in an output
# base of its own: the clang toolchain never displaces the gcc build's) and runs each for
# SECONDS, starting from its seed corpus (fuzz/corpus/<target>/). Fails on any crash, sanitizer
# report, failed property or timeout, naming the target and keeping the input that did it.
#   bash fuzz/run_all.sh [SECONDS] [TARGET...]     (default 10 s each, every target)
# Runs as many targets at once as there are cores (MLBENCH_FUZZ_JOBS to set it), each on one;
# prints per target, in order: executions, executions per second, corpus entries and bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz/run_all.sh: SECONDS must be a positive whole number, got '$seconds'" >&2
  exit 2
fi
if ! command -v clang >/dev/null; then
  echo "fuzz/run_all.sh: clang not found (bash tools/setup.sh installs it)" >&2
  exit 2
fi

base="${MLBENCH_FUZZ_OUTPUT_BASE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlbench/fuzz-output-base/$(pwd | md5sum | cut -c1-12)}"
bazel_fuzz() { bazel --output_base="$base" "$@"; }

if (($# > 0)); then
  targets=("$@")
else
  mapfile -t targets < <(bazel_fuzz query --noshow_progress 'kind(cc_binary, //fuzz:*)' 2>/dev/null |
    sed 's|^//fuzz:||')
fi
if ((${#targets[@]} == 0)); then echo "fuzz/run_all.sh: no fuzz targets found" >&2; exit 2; fi

# No bazel-* links (they belong to the plain build); gold's warnings about ASan's local symbols
# are noise.
set +e
bazel_fuzz build --config=fuzz --noshow_progress "${targets[@]/#///fuzz:}" 2>&1 |
  grep -v "warning: Cannot export local symbol"
rc=${PIPESTATUS[0]}
set -e
if ((rc != 0)); then echo "fuzz/run_all.sh: the fuzz build failed (exit $rc)" >&2; exit 1; fi
bin="$(bazel_fuzz info --config=fuzz bazel-bin 2>/dev/null)/fuzz"

jobs="${MLBENCH_FUZZ_JOBS:-$(nproc)}"
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz/run_all.sh: MLBENCH_FUZZ_JOBS must be a positive whole number, got '$jobs'" >&2
  exit 2
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/mlbench_fuzz.XXXXXX")"
fuzz_one() {  # TARGET: one target's run; its exit status goes to $work/TARGET.rc
  local t=$1 rc=0
  mkdir -p "$work/$t"
  # The first folder receives what the run finds; the seeds are read, never written.
  # -timeout: one input taking 10 s is a hang; detect_leaks off as in the asan config.
  # TMPDIR: a target's scratch files (fuzz_util.h ScratchDir) stay under $work, even after a crash.
  TMPDIR="$work" ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$work/$t." "$work/$t" "fuzz/corpus/$t" >"$work/$t.log" 2>&1 || rc=$?
  echo "$rc" > "$work/$t.rc"
}
echo "fuzz/run_all.sh: ${#targets[@]} target(s), ${seconds} s each, ${jobs} at a time"
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait
failed=()
printf '%-22s %10s %10s %8s %10s\n' target runs exec/s corpus bytes
for t in "${targets[@]}"; do
  log="$work/$t.log"
  rc="$(cat "$work/$t.rc" 2>/dev/null || echo '?')"
  if [[ "$rc" == 0 ]]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    corp=$(grep -o 'corp: [0-9]*/[0-9]*[bKM]*' "$log" | tail -1 | sed 's/corp: //')
    printf '%-22s %10s %10s %8s %10s\n' "$t" "$runs" "$rate" "${corp%%/*}" "${corp##*/}"
  else
    echo "fuzz/run_all.sh: $t FAILED (exit $rc); the end of its log ($log):" >&2
    tail -40 "$log" >&2
    ls "$work/$t."* 2>/dev/null | grep -v "$t\.\(log\|rc\)$" | sed 's/^/fuzz\/run_all.sh: input kept: /' >&2 || true
    failed+=("$t")
  fi
done
bazel_fuzz shutdown >/dev/null 2>&1 || true
if ((${#failed[@]})); then
  echo "fuzz/run_all.sh: FAILED: ${failed[*]} (logs and inputs in $work)" >&2
  exit 1
fi
rm -rf "$work"
echo "fuzz/run_all.sh: ${#targets[@]} target(s), ${seconds} s each, no crash"
