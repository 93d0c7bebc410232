#!/usr/bin/env bash
# //tools/report:report end to end: bad input exits 2 with a message naming the file and what
# is wrong; a ceilings file of another machine is not used and the page says so; a good run
# writes the page and its charts with no temporary files left, and a rerun removes a chart the
# new input no longer has; `--out=.` in a folder of the user's own charts is refused and, with
# --force, removes none of them; a file the user adds to a report's folder survives a rerun;
# elementwise cases with traffic counters and a ceilings file with memory roofs
# (testdata/memory_roofs_*.json): each case on its own roof, the honest AdamW not flagged.
set -u
REPORT="$(readlink -f "$1")"
MEMORY_RUN="$(readlink -f "$2")"
MEMORY_CEILINGS="$(readlink -f "$3")"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

expect_error() {  # expect_error TEXT ARGS...: exit 2 and TEXT in the message
  local text="$1"; shift
  local msg rc
  msg="$("$REPORT" "$@" 2>&1)"; rc=$?
  [[ $rc -eq 2 ]] || fail "$* exited $rc, not 2: $msg"
  grep -qF -- "$text" <<<"$msg" || fail "$*: message lacks '$text': $msg"
}

cat >"$TMP/run.json" <<'EOF'
{"context": {"cpu_model": "Test CPU", "num_cpus": 2},
 "benchmarks": [
  {"name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/manual_time", "real_time": 1, "time_unit": "ms",
   "FLOP/s": 3.3e10, "bytes/s": 7.8e8, "intensity": 42.7, "peak_FLOP/s": 2.4e11, "peak_bytes/s": 3.2e10,
   "verified": 1, "label": "peak: measured at start-up: test"},
  {"name": "BM_GptStep/gpt2/cpu/fp32/B:4/T:64/iterations:3/manual_time", "real_time": 250, "time_unit": "ms",
   "flops_per_second": 1.4e11, "mfu": 0.58, "verified": 1, "loss": NaN,
   "step_times_s": {"warmup": [0.4], "timed": [0.25, 0.26, 0.24]}}
 ]}
EOF
printf '{"benchmarks": [' >"$TMP/half.json"
printf '{"machine": "Other CPU", "peak_flops": {"fp32": 1e12}, "bandwidth_bytes_per_s": 1e11}\n' >"$TMP/other_ceilings.json"

expect_error "no --in=RUN.json (or --history=DB) given" --out="$TMP/x"
expect_error "no --out=DIR given" --in="$TMP/run.json"
expect_error "--history: no database at '$TMP/none.db'" --history="$TMP/none.db" --out="$TMP/x"
expect_error "--history_metric= is empty" --history="$TMP/none.db" --history_metric= --out="$TMP/x"
expect_error "unknown argument '--bogus'" --in="$TMP/run.json" --out="$TMP/x" --bogus
expect_error "cannot read run file '$TMP/missing.json'" --in="$TMP/missing.json" --out="$TMP/x"
expect_error "'$TMP/half.json' is not JSON (byte" --in="$TMP/half.json" --out="$TMP/x"
expect_error "'$TMP/other_ceilings.json' is JSON but not a Google Benchmark run" --in="$TMP/other_ceilings.json" --out="$TMP/x"
expect_error "--ceilings: cannot read ceilings file '$TMP/nope.json'" --in="$TMP/run.json" --ceilings="$TMP/nope.json" --out="$TMP/x"
expect_error "is not a tools/gate summary" --in="$TMP/run.json" --gate="$TMP/run.json" --out="$TMP/x"
touch "$TMP/a_file"
expect_error "exists and is not a folder" --in="$TMP/run.json" --out="$TMP/a_file"
expect_error "--max_trends=0 is invalid: an integer in 1..1000" --in="$TMP/run.json" --max_trends=0 --out="$TMP/x"
expect_error "--max_trends=5x is invalid" --in="$TMP/run.json" --max_trends=5x --out="$TMP/x"
"$REPORT" --help | grep -q -- "--ceilings=FILE" || fail "--help does not describe --ceilings"

# A good run, with a ceilings file of another machine.
out="$TMP/out"
msg="$("$REPORT" --in="$TMP/run.json" --ceilings="$TMP/other_ceilings.json" --out="$out" 2>&1)" || fail "good run failed: $msg"
for f in index.html roofline.svg matmul_sweep.svg steps.svg; do
  [[ -s "$out/$f" ]] || fail "$f not written"
done
[[ -e "$out/mfu_breakdown.svg" ]] && fail "mfu_breakdown.svg written without a breakdown"
ls "$out" | grep -q tmp && fail "temporary files left: $(ls "$out")"
grep -q "was measured on another machine (&#39;Other CPU&#39;" "$out/index.html" || fail "page does not say the ceilings file is another machine's"
grep -q "Roof: measured at start-up peak" "$out/index.html" || fail "page does not fall back to the run's own peak"
grep -q "No MFU loss breakdown in the input" "$out/index.html" || fail "page does not say the breakdown is absent"
grep -q "was measured on another machine" <<<"$msg" || fail "stderr does not mention the ceilings problem"

# Rerun without the gpt_step case: its steps.svg goes, the page matches the folder.
python3 - "$TMP/run.json" "$TMP/matmul_only.json" <<'PY' || fail "python"
import sys
text = open(sys.argv[1]).read().replace("NaN", "null")
import json
d = json.loads(text)
d["benchmarks"] = d["benchmarks"][:1]
json.dump(d, open(sys.argv[2], "w"))
PY
"$REPORT" --in="$TMP/matmul_only.json" --out="$out" >/dev/null 2>&1 || fail "second run failed"
[[ -e "$out/steps.svg" ]] && fail "stale steps.svg left behind"
grep -q "No step times: the input has no gpt_step run" "$out/index.html" || fail "page does not say why there are no step times"
grep -qx "index.html" "$out/report_manifest.txt" && ! grep -q "steps.svg" "$out/report_manifest.txt" \
  || fail "the manifest does not list what the report wrote: $(cat "$out/report_manifest.txt")"

# A file of the user's in the report's folder, named like a trend chart: a rerun leaves it.
echo mine >"$out/trend_9.svg"
"$REPORT" --in="$TMP/matmul_only.json" --out="$out" >/dev/null 2>&1 || fail "third run failed"
[[ "$(cat "$out/trend_9.svg" 2>/dev/null)" == mine ]] || fail "the report removed the user's trend_9.svg"

# --out=. in a folder of the user's own charts: refused, nothing touched; --force writes, and
# removes or alters nothing but the files of the report's names (here matmul_sweep.svg).
mine="$TMP/mine"
mkdir -p "$mine"
for f in steps.svg matmul_sweep.svg trend_1.svg trend_2.svg notes.txt; do echo "mine $f" >"$mine/$f"; done
snapshot() { (cd "$mine" && for f in *; do echo "$f $(md5sum <"$f")"; done); }
before="$(snapshot)"
msg="$(cd "$mine" && BUILD_WORKING_DIRECTORY="$mine" "$REPORT" --in="$TMP/matmul_only.json" --out=. 2>&1)"; rc=$?
[[ $rc -eq 2 ]] || fail "--out=. in a folder of the user's files exited $rc, not 2: $msg"
grep -qF "holds 5 file(s) that report did not write" <<<"$msg" && grep -qF -- "--force" <<<"$msg" \
  || fail "--out=.: the refusal does not say why or what to do: $msg"
[[ "$(snapshot)" == "$before" ]] || fail "a refused run changed the folder: $(ls "$mine")"
msg="$(cd "$mine" && BUILD_WORKING_DIRECTORY="$mine" "$REPORT" --in="$TMP/matmul_only.json" --out=. --force 2>&1)" \
  || fail "--out=. --force failed: $msg"
grep -qF "replaced $mine/matmul_sweep.svg, which report had not written" <<<"$msg" || fail "--force does not name the file it replaced: $msg"
for f in steps.svg trend_1.svg trend_2.svg notes.txt; do
  [[ "$(cat "$mine/$f" 2>/dev/null)" == "mine $f" ]] || fail "--out=. --force removed or changed the user's $f"
done
[[ -s "$mine/index.html" && -s "$mine/roofline.svg" ]] || fail "--force did not write the report"
# Its next run (no --force needed: the folder has the manifest now) still leaves them.
(cd "$mine" && BUILD_WORKING_DIRECTORY="$mine" "$REPORT" --in="$TMP/matmul_only.json" --out=. >/dev/null 2>&1) \
  || fail "a rerun into the forced folder failed"
for f in steps.svg trend_1.svg trend_2.svg notes.txt; do
  [[ "$(cat "$mine/$f" 2>/dev/null)" == "mine $f" ]] || fail "a rerun removed the user's $f"
done
# Memory roofs per traffic kind: the AdamW above the copy roof but under its in_place roof is not
# flagged, the one at 150% of it is; the table names each case's roof; the chart draws 8 roofs.
mem="$TMP/memory"
msg="$("$REPORT" --in="$MEMORY_RUN" --ceilings="$MEMORY_CEILINGS" --out="$mem" 2>&1)" || fail "memory roofs run failed: $msg"
grep -qF "BM_Elementwise/cpu/adamw/N:4194304: 32.6 GFLOP/s at 0.571 FLOP/byte is 50% above its own roof" <<<"$msg" \
  || fail "the AdamW at 150% of its in_place roof is not flagged: $msg"
grep -qF "adamw/N:16777216" <<<"$msg" && fail "the AdamW under its in_place roof is flagged: $msg"
grep -qF ">in_place DRAM 38.0 GB/s</td>" "$mem/index.html" || fail "the table does not name the in_place roof"
grep -qF ">copy L1 800.0 GB/s</td>" "$mem/index.html" || fail "the table does not hold the L1-sized case to L1"
[[ "$(grep -c 'class="memory-roof" data-kind' "$mem/roofline.svg")" == 8 ]] || fail "roofline.svg lacks its 8 memory roofs"
"$REPORT" --help | grep -qF "memory roofs" || fail "--help does not describe the memory roofs"
echo PASS
