#!/usr/bin/env bash
# //tools:devices prints the CPU, then GPUs or one "no CUDA device: <reason>" line; exits 0.
set -u
bin="$1"
out="$("$bin")"; rc=$?
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
[[ $rc -eq 0 ]] || fail "exit code $rc, want 0"
grep -q '^CPU: .\+' <<<"$out" || fail "no 'CPU: <model>' line"
grep -q 'logical CPUs: [1-9]' <<<"$out" || fail "no logical CPU count"
grep -q '^CPU GEMM onednn: oneDNN [0-9.]\+, kernel .\+' <<<"$out" || fail "no oneDNN line (version, kernel)"
grep -q '^CPU GEMM openblas: OpenBLAS [0-9.]\+, kernel .\+' <<<"$out" || fail "no OpenBLAS line (version, kernel)"
if grep -q '^no CUDA device: .\+' <<<"$out"; then
  grep -q '^GPU ' <<<"$out" && fail "both GPUs and 'no CUDA device'"
else
  grep -q '^GPU 0: .\+' <<<"$out" || fail "neither a GPU line nor 'no CUDA device: <reason>'"
fi
"$bin" --bogus >/dev/null 2>&1 && fail "unknown flag accepted"
echo "PASS"
