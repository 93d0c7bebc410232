#!/usr/bin/env python3
"""Each test's share of its timeout, read from Bazel's test.xml files: the slowest printed, any
over the allowed share a failure.

A test must fit slower machines than the one it was sized on (a 2-core Intel VM ran this suite's
end-to-end tests up to 2x slower than the development Zen 4; the sanitizer build runs 2-3x
slower again), so CI holds every test to at most a third of its timeout.

    bazel query 'tests(//...)' --output=xml > tests.xml
    bazel test //...
    python3 tools/ci/test_times.py --tests_xml=tests.xml --testlogs="$(bazel info bazel-testlogs)"

Durations: a gtest binary's test.xml has the run's total `time` on its <testsuites> element;
the test.xml Bazel writes for other tests (sh_test) has a <testcase duration="S"> in whole
seconds. Timeouts: the rule's `timeout` attribute when set, else its `size` (Bazel's defaults:
small 60 s, medium 300 s, large 900 s, enormous 3600 s; a test without a size is medium), or
--test_timeout as Bazel takes it (one number, or four for short,moderate,long,eternal).

Exit status: 0 every test within the share; 1 at least one over it (each named); 2 bad input
(a file that does not parse, no test.xml at all).
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

SIZE_TIMEOUT = {"small": "short", "medium": "moderate", "large": "long", "enormous": "eternal"}
TIMEOUT_S = {"short": 60, "moderate": 300, "long": 900, "eternal": 3600}


def die(msg):
    print(f"test_times: error: {msg}", file=sys.stderr)
    sys.exit(2)


def timeout_table(override):
    """Bazel's --test_timeout: empty (the defaults), one number for all, or four."""
    if not override:
        return dict(TIMEOUT_S)
    parts = override.split(",")
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        die(f"--test_timeout={override!r}: not one number or four comma-separated numbers")
    if len(vals) == 1:
        vals *= 4
    if len(vals) != 4 or any(v <= 0 for v in vals):
        die(f"--test_timeout={override!r}: give one positive number or four (short,moderate,long,eternal)")
    return dict(zip(["short", "moderate", "long", "eternal"], vals))


def read_tests(path, table):
    """{label: (timeout_s, how)} for every *_test rule in `bazel query --output=xml`."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        die(f"--tests_xml={path}: {e}")
    tests = {}
    for rule in root.iter("rule"):
        if not rule.get("class", "").endswith("_test"):
            continue
        attrs = {s.get("name"): s.get("value") for s in rule.findall("string")}
        size = attrs.get("size") or "medium"
        timeout = attrs.get("timeout") or ""
        if timeout in ("", "illegal"):  # unset: the size decides
            timeout = SIZE_TIMEOUT.get(size, "moderate")
            how = f"size {size}"
        else:
            how = f"timeout {timeout}"
        tests[rule.get("name")] = (table[timeout], how, rule.get("class"))
    return tests


def xml_duration(path, rule_class):
    """Seconds the test ran, from its test.xml (see the module comment)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        die(f"{path}: {e}")
    if root.get("time") is not None:  # gtest: the whole run
        if rule_class != "cc_test":
            # A gtest binary that the script ran wrote its own report to XML_OUTPUT_FILE, so Bazel
            # kept that instead of timing the whole test: the figure would be the binary's alone.
            die(f"{path}: a {rule_class} whose test.xml a gtest binary it ran wrote (XML_OUTPUT_FILE); "
                "the script's whole duration is unknown: unset XML_OUTPUT_FILE for that binary")
        return float(root.get("time"))
    total = 0.0
    for case in root.iter("testcase"):
        total += float(case.get("duration") or case.get("time") or 0)
    return total


def test_xml_files(testlogs, label, since):
    """The test.xml files of one test (one, or one per shard or run), newer than `since`."""
    pkg, name = label.lstrip("/").split(":", 1)
    base = os.path.join(testlogs, pkg, name)
    found = []
    for dirpath, _, files in os.walk(base):
        if "test.xml" in files:
            p = os.path.join(dirpath, "test.xml")
            if os.path.getmtime(p) >= since:
                found.append(p)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tests_xml", required=True, help="`bazel query 'tests(//...)' --output=xml` output")
    ap.add_argument("--testlogs", required=True, help="the bazel-testlogs folder of the run (`bazel info bazel-testlogs` with its flags)")
    ap.add_argument("--max_share", type=float, default=1 / 3, help="largest allowed duration / timeout (default 1/3)")
    ap.add_argument("--top", type=int, default=5, help="how many of the slowest to print (default 5)")
    ap.add_argument("--test_timeout", default="", help="the --test_timeout the run was given, if any")
    ap.add_argument("--since", type=float, default=0, help="ignore test.xml files older than this (seconds since the epoch)")
    ap.add_argument("--title", default="bazel test", help="the run's name in the output")
    a = ap.parse_args()
    if not 0 < a.max_share <= 1:
        die(f"--max_share={a.max_share}: must be in (0, 1]")
    if a.top < 0:
        die(f"--top={a.top}: must be >= 0")
    if not os.path.isdir(a.testlogs):
        die(f"--testlogs={a.testlogs}: not a folder")
    tests = read_tests(a.tests_xml, timeout_table(a.test_timeout))
    rows = []  # (share, duration, timeout, how, label)
    for label, (timeout, how, rule_class) in sorted(tests.items()):
        for p in test_xml_files(a.testlogs, label, a.since):
            d = xml_duration(p, rule_class)
            rows.append((d / timeout, d, timeout, how, label))
    if not rows:
        die(f"no test.xml under {a.testlogs} for any of the {len(tests)} tests (did the tests run?)")
    rows.sort(reverse=True)
    print(f"test_times: {a.title}: {len(rows)} test result(s); the {min(a.top, len(rows))} slowest by share of their timeout:")
    for share, d, timeout, how, label in rows[: a.top]:
        print(f"  {share * 100:5.1f}%  {d:7.1f} s of {timeout:4d} s ({how})  {label}")
    over = [r for r in rows if r[0] > a.max_share]
    if over:
        print(f"test_times: {len(over)} test(s) used more than {a.max_share * 100:.1f}% of their timeout; "
              "give them a larger size (or timeout), or make them faster:")
        for share, d, timeout, how, label in over:
            print(f"  {share * 100:5.1f}%  {d:7.1f} s of {timeout:4d} s ({how})  {label}")
        return 1
    print(f"test_times: every test within {a.max_share * 100:.1f}% of its timeout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
