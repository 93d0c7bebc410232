#!/usr/bin/env bash
# function_lengths.py on fixtures: a function of exactly the limit passes and one line more fails,
# named with its file and line; braces in comments, strings, raw strings and lambdas are not
# functions of their own; control blocks and classes are not functions; bad input exits 2.
set -uo pipefail
FL="$1"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
body() {  # N: N - 2 statement lines (a function of N lines with its two brace lines)
  local i
  for ((i = 0; i < $1 - 2; ++i)); do echo "  x += $i;  // {"; done
}
{
  echo "namespace n {"
  echo "struct S { int a; };"
  echo "int Short(int x) {"
  body 10
  echo "  return x;"
  echo "}"
  echo "int AtTheLimit(int x)"
  echo "{"
  body 7
  echo '  const char* s = "}}}";'
  echo '  auto f = [&](int y) { return y + 1; };'
  echo '  const char* r = R"x(})x";'
  echo "  if (x > 0) { x = f(x); }"
  echo "  return x;"
  echo "}"
  echo "}  // namespace n"
} > "$TMP/ok.cc"
# AtTheLimit: its brace lines, 5 statement lines from body 7, then 5 more lines, and the last: 12.
out="$(python3 "$FL" --max_lines=12 "$TMP/ok.cc")"; rc=$?
echo "$out"
[[ $rc -eq 0 ]] || fail "functions within the limit: exit $rc"
grep -q "12 lines  $TMP/ok.cc:15  int AtTheLimit(int x)" <<<"$out" || fail "AtTheLimit must measure 12 lines from its brace"
grep -q "functions in 1 files" <<<"$out" || fail "the count line"
! grep -q "f(int y)\|if (x > 0)\|struct S" <<<"$out" || fail "a lambda, an if or a struct counted as a function"
out="$(python3 "$FL" --max_lines=11 "$TMP/ok.cc")"; rc=$?
[[ $rc -eq 1 ]] || fail "a function one line over the limit: exit $rc"
grep -q "function_lengths: $TMP/ok.cc:15: 12 lines, over 11: int AtTheLimit(int x)" <<<"$out" || fail "the finding must name the function: $out"
out="$(python3 "$FL" --max_lines=0 "$TMP/ok.cc" 2>&1)"; rc=$?
[[ $rc -eq 2 ]] && grep -q -- "--max_lines=0 is invalid" <<<"$out" || fail "--max_lines=0: exit $rc: $out"
out="$(python3 "$FL" "$TMP/missing.cc" 2>&1)"; rc=$?
[[ $rc -eq 2 ]] && grep -q "cannot read $TMP/missing.cc" <<<"$out" || fail "a missing file: exit $rc: $out"
echo "PASS"
