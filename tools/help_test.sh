#!/usr/bin/env bash
# Every binary and tool answers --help: exit 0, a usage message that names the program (or says
# "Usage"), on stdout. Abseil's own --help exits 1 (harness/flags_main.h says why it is not
# used); Google Benchmark's exits 0 and the micro binaries put their own flags first.
# Usage: help_test.sh NAME=BINARY...
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
[[ $# -gt 0 ]] || fail "no binaries given"
for pair in "$@"; do
  name="${pair%%=*}" bin="${pair#*=}"
  out="$("$bin" --help 2>"$TEST_TMPDIR/err.txt")"; rc=$?
  [[ $rc -eq 0 ]] || { head -5 "$TEST_TMPDIR/err.txt"; fail "$name --help exited $rc, expected 0"; }
  [[ "$out" == *Usage* || "$out" == *"$name"* ]] || { head -5 <<<"$out"; fail "$name --help: no 'Usage' and no '$name' on stdout"; }
  [[ $(wc -l <<<"$out") -ge 3 ]] || fail "$name --help says too little: $out"
  echo "ok: $name --help: exit 0, $(wc -l <<<"$out") lines: $(head -1 <<<"$out")"
done
# Flags of our own are shown, not only the library's.
for pair in "$@"; do
  name="${pair%%=*}" bin="${pair#*=}" flag=""
  case "$name" in
    gpt_step) flag="--profile_out" ;;
    decode_accuracy) flag="--weights" ;;
    gpt_serve) flag="--find_max_rate" ;;
    matmul|elementwise) flag="--ceilings=FILE" ;;
    ceilings) flag="--ceilings_out=FILE" ;;
    bench) flag="--repetitions" ;;
    gate) flag="--current" ;;
    history) flag="--db" ;;
    make_tokens) flag="--random" ;;
    report) flag="--in=FILE" ;;
    sweep) flag="--repetitions" ;;
  esac
  [[ -z "$flag" ]] && continue
  out="$("$bin" --help 2>/dev/null)"
  grep -qF -- "$flag" <<<"$out" || fail "$name --help does not list $flag"
done
# An unknown flag is still an error (1: command line not understood) in the Abseil-flag tools.
for pair in "$@"; do
  name="${pair%%=*}" bin="${pair#*=}"
  case "$name" in gpt_step|decode_accuracy|gpt_serve|bench|gate|history|make_tokens|sweep) ;; *) continue ;; esac
  "$bin" --no_such_flag_xyz=1 >/dev/null 2>&1; rc=$?
  [[ $rc -eq 1 ]] || fail "$name --no_such_flag_xyz exited $rc, expected 1"
done
echo "PASS"
