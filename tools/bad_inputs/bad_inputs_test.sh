#!/usr/bin/env bash
# Runs every row of cases.txt against the real binaries and checks its exit code and message,
# then checks that the README's "Bad inputs" table is the one this list generates.
#   bazel test //tools/bad_inputs:bad_inputs_test
#   bazel run //tools/bad_inputs:update_readme      # rewrite the README's table from cases.txt
# Arguments: cases.txt README.md then NAME=PATH for each binary; --write as the first argument
# rewrites the README (in BUILD_WORKSPACE_DIRECTORY) instead of comparing.
set -uo pipefail
write=0
if [[ "${1:-}" == "--write" ]]; then write=1; shift; fi
cases="$1" readme="$2"; shift 2
declare -A BIN=()
for kv in "$@"; do BIN["${kv%%=*}"]="$(cd "$(dirname "${kv#*=}")" && pwd)/$(basename "${kv#*=}")"; done
cases="$(cd "$(dirname "$cases")" && pwd)/$(basename "$cases")"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bad_inputs.XXXXXX")"
fails=0 n=0
table="| tool | input | exit | the message says |
| --- | --- | --- | --- |"
trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; echo "${s%"${s##*[![:space:]]}"}"; }
while IFS='|' read -r tool args code phrase; do
  [[ "$tool" =~ ^[[:space:]]*(#|$) ]] && continue
  tool="$(trim "$tool")" args="$(trim "$args")" code="$(trim "$code")" phrase="$(trim "$phrase")"
  n=$((n + 1))
  exe="${BIN[$tool]:-}"
  if [[ -z "$exe" ]]; then echo "FAIL row $n: no binary named '$tool'"; fails=$((fails + 1)); continue; fi
  dir="$work/$n"; mkdir -p "$dir"
  eval "set -- $args"
  out="$(cd "$dir" && BUILD_WORKING_DIRECTORY="$dir" timeout 120 "$exe" "$@" 2>&1 </dev/null)"
  rc=$?
  if [[ "$rc" != "$code" ]]; then
    echo "FAIL row $n: $tool $args: exit $rc, expected $code; output tail:"; echo "$out" | tail -3
    fails=$((fails + 1))
  elif ! grep -qF -- "$phrase" <<<"$out"; then
    echo "FAIL row $n: $tool $args: exit $rc as expected, but the message lacks '$phrase'; output tail:"
    echo "$out" | tail -3
    fails=$((fails + 1))
  fi
  table+=$'\n'"| $tool | \`${args:-(none)}\` | $code | $(sed 's/|/\\|/g' <<<"$phrase") |"
done <"$cases"
echo "bad_inputs: $n rows, $fails failed"

begin='<!-- bad-inputs: generated from tools/bad_inputs/cases.txt; do not edit -->'
end='<!-- bad-inputs: end -->'
if ((write)); then
  target="${BUILD_WORKSPACE_DIRECTORY:?run with bazel run}/README.md"
  python3 - "$target" "$begin" "$end" <<PY
import sys
p, b, e = sys.argv[1:4]
s = open(p).read()
i, j = s.index(b) + len(b), s.index(e)
s = s[:i] + "\n" + """$table""" + "\n" + s[j:]
open(p + ".tmp", "w").write(s)
import os; os.replace(p + ".tmp", p)
PY
  echo "bad_inputs: wrote the table ($n rows) into $target"
  exit $((fails > 0))
fi
current="$(awk -v b="$begin" -v e="$end" '$0==e{f=0} f{print} $0==b{f=1}' "$readme")"
if [[ "$current" != "$table" ]]; then
  echo "FAIL: README.md's bad-input table is stale; run: bazel run //tools/bad_inputs:update_readme"
  diff <(echo "$current") <(echo "$table") | head -20
  fails=$((fails + 1))
fi
((n >= 40)) || { echo "FAIL: only $n rows (the table promises at least 40)"; fails=$((fails + 1)); }
rm -rf "$work"
exit $((fails > 0))
