#!/usr/bin/env bash
# //micro:allreduce under mpirun with 2 CPU ranks: every size verified, busbw = algbw x 2(n-1)/n;
# its --benchmark_out JSON is accepted by the gate (recorded, then gated against itself: exit 0);
# --benchmark_format=json and csv (Google Benchmark's flag) put the report on stdout, the table
# on stderr; a format it does not know is refused naming the value.
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
# --benchmark_format, as every Google Benchmark binary takes it: json and csv on stdout, the
# table on stderr; --benchmark_out_format=json as the other binaries' callers pass it.
run_format() {  # FORMAT: stdout into $tmp/FORMAT.out, stderr into $tmp/FORMAT.err
  timeout 60 mpirun -np 2 --oversubscribe "$bin" --min_bytes=1024 --max_bytes=4096 --iters=2 --warmup=1 \
    --benchmark_format="$1" --benchmark_out="$tmp/$1.json" --benchmark_out_format=json >"$tmp/$1.out" 2>"$tmp/$1.err" \
    || { rc=$?; cat "$tmp/$1.err"; echo "FAIL: --benchmark_format=$1 exited $rc"; exit 1; }
  grep -q "^ *4096 .* yes" "$tmp/$1.err" || { cat "$tmp/$1.err"; echo "FAIL: --benchmark_format=$1: no table on stderr"; exit 1; }
}
run_format json
run_format csv
python3 - "$tmp" <<'PY' || { echo "FAIL: --benchmark_format=json / csv"; exit 1; }
import csv, json, sys
t = sys.argv[1]
out, file = json.load(open(t + "/json.out")), json.load(open(t + "/json.json"))
names = ["BM_Allreduce/mpi/ranks:2/bytes:%d" % b for b in (1024, 2048, 4096)]
assert [e["name"] for e in out["benchmarks"]] == names, out
assert out == file, "stdout's JSON is not the --benchmark_out file"
rows = list(csv.reader(open(t + "/csv.out")))
assert rows[0][:10] == ["name", "iterations", "real_time", "cpu_time", "time_unit", "bytes_per_second",
                        "items_per_second", "label", "error_occurred", "error_message"], rows[0]
assert [r[0] for r in rows[1:]] == names, rows
col = rows[0].index("verified")
assert all(r[col] == "1" and r[4] == "us" and float(r[2]) > 0 for r in rows[1:]), rows
PY
# Bad flag: an error naming the value.
# (Run alone, as MPI's singleton: mpirun's abort after a failed rank takes 2-3 s.)
for bad in --benchmark_format=xml --benchmark_out_format=csv; do
  rc=0; err=$(timeout 30 "$bin" "$bad" 2>&1) || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $bad: exit $rc, want 2: $err"; exit 1; }
  echo "$err" | grep -q -- "$bad: allowed: " || { echo "FAIL: error must name $bad and what is allowed: $err"; exit 1; }
done
if err=$(timeout 30 mpirun -np 1 "$bin" --min_bytes=3 2>&1); then echo "FAIL: --min_bytes=3 accepted"; exit 1; fi
echo "$err" | grep -q "min_bytes=3" || { echo "FAIL: error must name --min_bytes=3"; exit 1; }
echo PASS
