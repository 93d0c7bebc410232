#!/usr/bin/env bash
# //tools:make_tokens: byte tokens from text, random tokens, and clear failures that leave no file.
set -u
bin="$1"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

printf 'hello\n' > "$dir/in.txt"
"$bin" --in="$dir/in.txt" --out="$dir/train.bin" || fail "text conversion failed"
[[ $(stat -c %s "$dir/train.bin") -eq 12 ]] || fail "6 bytes of text should give 12 bytes"
want="$(printf 'h\0e\0l\0l\0o\0\n\0' | od -An -tx1)"
got="$(od -An -tx1 "$dir/train.bin")"
[[ "$got" == "$want" ]] || fail "byte tokens: got $got, want $want"

"$bin" --random=1000 --vocab=300 --seed=7 --out="$dir/rand.bin" || fail "random failed"
[[ $(stat -c %s "$dir/rand.bin") -eq 2000 ]] || fail "1000 random tokens should be 2000 bytes"
max="$(od -An -tu2 -v "$dir/rand.bin" | tr -s ' ' '\n' | sort -n | tail -1)"
(( max < 300 )) || fail "random token $max >= vocab 300"
"$bin" --random=1000 --vocab=300 --seed=7 --out="$dir/rand2.bin"
cmp -s "$dir/rand.bin" "$dir/rand2.bin" || fail "same seed gave different files"

# A run killed between writing its temporary file and the rename leaves
# "<out>.tmp.make_tokens.<pid>" (before: "<out>.tmp.<pid>", the form planted here); the next run
# removes it when that process is gone, and keeps a live writer's file.
dead_pid="$(sh -c 'echo $$')"   # that shell has exited: no process has this pid
printf 'partial' > "$dir/rand.bin.tmp.$dead_pid"
printf 'partial' > "$dir/rand.bin.tmp.$$"   # this script: alive
"$bin" --random=1000 --vocab=300 --seed=7 --out="$dir/rand.bin" || fail "rerun failed"
[[ ! -e "$dir/rand.bin.tmp.$dead_pid" ]] || fail "the stale temporary file of pid $dead_pid was left"
[[ -e "$dir/rand.bin.tmp.$$" ]] || fail "removed the temporary file of a live process"
cmp -s "$dir/rand.bin" "$dir/rand2.bin" || fail "rerun after a stale file gave another file"
rm -f "$dir/rand.bin.tmp.$$"

expect_error() {  # expect_error PATTERN ARGS...: non-zero exit, message matches, no output file
  local pattern="$1"; shift
  rm -f "$dir/bad.bin"
  local msg; msg="$("$bin" "$@" --out="$dir/bad.bin" 2>&1)" && fail "accepted: $*"
  grep -q -- "$pattern" <<<"$msg" || fail "for '$*' message '$msg' lacks '$pattern'"
  [[ ! -e "$dir/bad.bin" ]] || fail "left an output file for: $*"
  ls "$dir" | grep -q '\.tmp\.' && fail "left a temporary file for: $*"
  return 0
}
expect_error "cannot read text file" --in="$dir/missing.txt"
: > "$dir/empty.txt"
expect_error "is empty" --in="$dir/empty.txt"
expect_error "exactly one of" --in="$dir/in.txt" --random=5
expect_error "exactly one of"
expect_error "vocab=70000" --random=5 --vocab=70000
"$bin" --random=5 >/dev/null 2>&1 && fail "missing --out accepted"
echo "PASS"
