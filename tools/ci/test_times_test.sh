#!/usr/bin/env bash
# test_times.py on fixtures: a gtest test.xml (total on <testsuites time>) and a Bazel sh_test
# test.xml (<testcase duration>), sizes and explicit timeouts from a query XML, --test_timeout,
# the share rule (exit 1 naming the test over it), and bad input (exit 2).
set -uo pipefail
TT="$1"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
cat >"$TMP/tests.xml" <<'X'
<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
  <rule class="cc_test" location="a/BUILD:1:1" name="//a:fast_test"><string name="size" value="small"/></rule>
  <rule class="sh_test" location="b/BUILD:1:1" name="//b:e2e_test"><string name="size" value="medium"/></rule>
  <rule class="sh_test" location="b/BUILD:2:1" name="//b:long_test"><string name="size" value="small"/><string name="timeout" value="long"/></rule>
  <rule class="cc_test" location="c/BUILD:1:1" name="//c:unsized_test"/>
  <rule class="cc_library" location="a/BUILD:2:1" name="//a:lib"/>
</query>
X
logs="$TMP/testlogs"
mkdir -p "$logs/a/fast_test" "$logs/b/e2e_test" "$logs/b/long_test" "$logs/c/unsized_test"
echo '<testsuites tests="3" time="2.5"><testsuite name="S" time="2.5"><testcase name="x" time="2.5"/></testsuite></testsuites>' >"$logs/a/fast_test/test.xml"
gen() { echo "<testsuites><testsuite name=\"t\" tests=\"1\"><testcase name=\"t\" status=\"run\" duration=\"$1\" time=\"$1\"></testcase></testsuite></testsuites>"; }
gen 90 >"$logs/b/e2e_test/test.xml"     # 90 of 300 s: 30%
gen 270 >"$logs/b/long_test/test.xml"   # 270 of 900 s: 30%
gen 12 >"$logs/c/unsized_test/test.xml" # medium: 12 of 300 s

out="$(python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" --top=2)"; rc=$?
echo "$out"
[[ $rc -eq 0 ]] || fail "all within a third: exit $rc"
grep -q "4 test result(s); the 2 slowest" <<<"$out" || fail "count or top line"
grep -q "30.0%     90.0 s of  300 s (size medium)  //b:e2e_test" <<<"$out" || fail "e2e_test row"
grep -q "30.0%    270.0 s of  900 s (timeout long)  //b:long_test" <<<"$out" || fail "explicit timeout row"
grep -q "fast_test" <<<"$out" && fail "--top=2 printed a third test"

# --test_timeout=200 for all: the 90 s test is now 45% of its timeout, the 270 s one 135%.
out="$(python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" --test_timeout=200)"; rc=$?
echo "$out"
[[ $rc -eq 1 ]] || fail "over the share: exit $rc, expected 1"
grep -q "2 test(s) used more than 33.3% of their timeout" <<<"$out" || fail "over-share summary"
grep -q "135.0%    270.0 s of  200 s (timeout long)  //b:long_test" <<<"$out" || fail "over-share row"

# A gtest total of 25 s in a small test: 41.7% > 1/3.
echo '<testsuites tests="1" time="25"></testsuites>' >"$logs/a/fast_test/test.xml"
python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" >"$TMP/o.txt"; rc=$?
[[ $rc -eq 1 ]] || { cat "$TMP/o.txt"; fail "gtest time over the share: exit $rc"; }
grep -q "41.7%     25.0 s of   60 s (size small)  //a:fast_test" "$TMP/o.txt" || { cat "$TMP/o.txt"; fail "gtest row"; }

# --since leaves out older results; none left is an error.
python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" --since=$(( $(date +%s) + 100 )) 2>"$TMP/e.txt"; rc=$?
[[ $rc -eq 2 ]] && grep -q "no test.xml" "$TMP/e.txt" || fail "--since in the future: exit $rc, $(cat "$TMP/e.txt")"

# Bad input: exit 2 with the reason.
echo "<testsuites" >"$logs/c/unsized_test/test.xml"
python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" 2>"$TMP/e.txt"; rc=$?
[[ $rc -eq 2 ]] && grep -q "unsized_test/test.xml" "$TMP/e.txt" || fail "broken test.xml: exit $rc, $(cat "$TMP/e.txt")"
python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" --test_timeout=1,2 2>"$TMP/e.txt"; rc=$?
[[ $rc -eq 2 ]] && grep -q -- "--test_timeout='1,2'" "$TMP/e.txt" || fail "bad --test_timeout: exit $rc"
# An sh_test whose test.xml a gtest binary wrote (XML_OUTPUT_FILE passed down): refused, since
# its duration would be the binary's, not the script's.
echo '<testsuites tests="1" time="0.8"></testsuites>' >"$logs/c/unsized_test/test.xml"
echo '<testsuites tests="1" time="0.8"></testsuites>' >"$logs/b/e2e_test/test.xml"
python3 "$TT" --tests_xml="$TMP/tests.xml" --testlogs="$logs" 2>"$TMP/e.txt"; rc=$?
[[ $rc -eq 2 ]] && grep -q "e2e_test/test.xml: a sh_test whose test.xml a gtest binary it ran wrote" "$TMP/e.txt" \
  || fail "gtest XML for an sh_test: exit $rc, $(cat "$TMP/e.txt")"
python3 "$TT" --tests_xml="$TMP/nope.xml" --testlogs="$logs" 2>"$TMP/e.txt"; rc=$?
[[ $rc -eq 2 ]] || fail "missing --tests_xml: exit $rc"
echo PASS
