#!/usr/bin/env bash
# //micro:allreduce under mpirun with 2 CPU ranks: every size verified, busbw = algbw x 2(n-1)/n.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(readlink -f "$1")
out=$(timeout 60 mpirun -np 2 --oversubscribe "$bin" --min_bytes=1024 --max_bytes=65536 --iters=5 --warmup=2)
echo "$out"
rows=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && $5 == "yes"' | wc -l)
[ "$rows" = 7 ] || { echo "FAIL: expected 7 verified sizes, got $rows"; exit 1; }
# n = 2: busbw equals algbw.
echo "$out" | awk '$1 ~ /^[0-9]+$/ { if ($3 != $4) { print "FAIL: busbw != algbw at n=2: " $0; exit 1 } }'
# Bad flag: an error naming the value.
if err=$(timeout 30 mpirun -np 1 "$bin" --min_bytes=3 2>&1); then echo "FAIL: --min_bytes=3 accepted"; exit 1; fi
echo "$err" | grep -q "min_bytes=3" || { echo "FAIL: error must name --min_bytes=3"; exit 1; }
echo PASS
