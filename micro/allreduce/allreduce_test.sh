#!/usr/bin/env bash
# //micro:allreduce under mpirun with 2 CPU ranks: every size verified, busbw = algbw x 2(n-1)/n;
# its --benchmark_out JSON is accepted by the gate (recorded, then gated against itself: exit 0).
# Args: ALLREDUCE_BINARY [GATE_BINARY]
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(readlink -f "$1")
gate=${2:+$(readlink -f "$2")}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
out=$(timeout 60 mpirun -np 2 --oversubscribe "$bin" --min_bytes=1024 --max_bytes=65536 --iters=5 --warmup=2 \
  --benchmark_out="$tmp/allreduce.json")
echo "$out"
rows=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && $5 == "yes"' | wc -l)
[ "$rows" = 7 ] || { echo "FAIL: expected 7 verified sizes, got $rows"; exit 1; }
# n = 2: busbw equals algbw.
echo "$out" | awk '$1 ~ /^[0-9]+$/ { if ($3 != $4) { print "FAIL: busbw != algbw at n=2: " $0; exit 1 } }'
# The JSON: one iteration entry per size, times and bandwidths as in the table.
python3 - "$tmp/allreduce.json" <<'PY' || { echo "FAIL: benchmark JSON"; exit 1; }
import json, sys
j = json.load(open(sys.argv[1]))
assert "mlbench_run_context" in j["context"], j["context"].keys()
b = j["benchmarks"]
assert [e["name"] for e in b] == ["BM_Allreduce/mpi/ranks:2/bytes:%d" % (1024 << k) for k in range(7)], b
for e in b:
    assert e["run_type"] == "iteration" and e["iterations"] == 5 and e["time_unit"] == "us", e
    assert e["verified"] == 1 and e["real_time"] > 0, e
    assert abs(e["algbw"] - e["bytes"] / (e["real_time"] * 1e-6)) <= 1e-9 * e["algbw"], e
    assert e["busbw"] == e["algbw"], e  # n = 2
PY
if [ -n "$gate" ]; then
  "$gate" --current="$tmp/allreduce.json" --update --baseline_dir="$tmp/baselines" > "$tmp/gate_update.log" 2>&1 \
    || { cat "$tmp/gate_update.log"; echo "FAIL: gate --update on allreduce's JSON"; exit 1; }
  "$gate" --current="$tmp/allreduce.json" --baseline_dir="$tmp/baselines" > "$tmp/gate.log" 2>&1 \
    || { cat "$tmp/gate.log"; echo "FAIL: gate against its own baseline"; exit 1; }
  grep -q "7 SAME" "$tmp/gate.log" || { cat "$tmp/gate.log"; echo "FAIL: expected 7 SAME cases"; exit 1; }
fi
# --help: exit 0 with the usage and the flags.
help=$("$bin" --help) || { echo "FAIL: --help exited $?"; exit 1; }
grep -q "mpirun -np N allreduce" <<<"$help" && grep -q -- "--benchmark_out" <<<"$help" \
  || { echo "FAIL: --help: $help"; exit 1; }
# Bad flag: an error naming the value.
if err=$(timeout 30 mpirun -np 1 "$bin" --min_bytes=3 2>&1); then echo "FAIL: --min_bytes=3 accepted"; exit 1; fi
echo "$err" | grep -q "min_bytes=3" || { echo "FAIL: error must name --min_bytes=3"; exit 1; }
echo PASS
