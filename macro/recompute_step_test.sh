#!/usr/bin/env bash
# --recompute end to end (//macro:gpt_step on the CPU): --recompute=all runs every level of a GPT-2
# and a Llama preset back to back, each from the same seed and batch, and
#  - every level ends at the same loss, bit for bit (the backward recomputes with the same ops on
#    the same inputs, so the gradients and the updates are none's: model/recompute_test.cc checks
#    them directly);
#  - the activations kept shrink as the level says (block keeps the least), measured (the
#    activation buffer's resident bytes) equal to predicted;
#  - HFU over MFU, counted from the matmuls issued, is within 2% of the formula's for each level;
#  - the trade table has a line per level, and the summary of a single level prints the memory
#    ledger with the logits named as the largest activation.
set -u
STEP="$1"; FIXTURE="$2"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
python3 "$FIXTURE" "$TMP/ceil.json" --peak=1e12 --triad=1e10 || fail "writing the fixture ceilings file"
COMMON=(--batch=2 --seq=16 --warmup_steps=1 --steps=3 --device=cpu --threads=1 --ceilings="$TMP/ceil.json")

for preset in test-mini llama-tiny; do
  "$STEP" --preset=$preset "${COMMON[@]}" --recompute=all --benchmark_format=json \
    >"$TMP/$preset.json" 2>"$TMP/$preset.log" || { cat "$TMP/$preset.log"; fail "$preset --recompute=all exited non-zero"; }
  grep -q "== recompute trade" "$TMP/$preset.log" || { cat "$TMP/$preset.log"; fail "$preset: no trade table"; }
  python3 - "$TMP/$preset.json" "$TMP/$preset.log" "$preset" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1])); log = open(sys.argv[2]).read(); preset = sys.argv[3]
act = "swiglu" if preset.startswith("llama") else "gelu"
levels = ["none", act, "attention", "block"]
cases = {b["name"].split("/recompute:", 1)[1].split("/")[0]: b for b in doc["benchmarks"]}
def fail(msg):
    print(f"FAIL: {preset}: {msg}"); sys.exit(1)
if sorted(cases) != sorted(levels):
    fail(f"cases {sorted(cases)}, expected one per level {levels}")
none = cases["none"]
for level in levels:
    c = cases[level]
    if c.get("verified") != 1: fail(f"{level}: not verified")
    if c["loss"] != none["loss"]:
        fail(f"{level}: loss {c['loss']!r} after the same steps as none's {none['loss']!r}: the gradients differ")
    if c["mem_activations_bytes_measured"] != c["mem_activations_bytes"]:
        fail(f"{level}: activations resident {c['mem_activations_bytes_measured']} != predicted {c['mem_activations_bytes']}")
    ratio, predicted = c["hfu_over_mfu"], c["hfu_over_mfu_predicted"]
    if abs(ratio / predicted - 1) > 0.02:
        fail(f"{level}: HFU/MFU counted {ratio:.4f} vs predicted {predicted:.4f}: more than 2% apart")
    if not c["mem_peak_bytes_measured"] > 0: fail(f"{level}: no measured peak")
    if not any(line.split()[:1] == [level] for line in log.splitlines()):
        fail(f"no table line for {level}")
acts = [cases[l]["mem_activations_bytes"] for l in levels]
if not (acts[0] > acts[1] and acts[0] > acts[2] and acts[3] < min(acts[1:3])):
    fail(f"activations by level {acts}: each level should keep less than none, block the least")
if not cases["block"]["hfu_over_mfu_predicted"] > 1.2:
    fail(f"block's HFU/MFU {cases['block']['hfu_over_mfu_predicted']}: a recomputed forward is about a third more")
if abs(none["hfu_over_mfu_predicted"] - 1) > 1e-12: fail("none's predicted HFU/MFU is not 1")
print(f"{preset}: {len(levels)} levels, loss {none['loss']!r} each; activations {acts}")
PY
done

# One level: its summary names the level on the HFU line and prints the ledger.
"$STEP" --preset=test-mini "${COMMON[@]}" --recompute=block >"$TMP/block.log" 2>&1 \
  || { cat "$TMP/block.log"; fail "--recompute=block exited non-zero"; }
grep -q "^HFU .*--recompute=block" "$TMP/block.log" || { cat "$TMP/block.log"; fail "no HFU line naming the level"; }
grep -q "^HFU/MFU .* counted .* predicted" "$TMP/block.log" || fail "no HFU/MFU line"
grep -q "^memory ledger" "$TMP/block.log" || fail "no memory ledger"
grep -q "the largest: logits .*no recompute level frees the logits" "$TMP/block.log" \
  || { grep -A8 "^memory ledger" "$TMP/block.log"; fail "the ledger does not name the logits as the largest"; }
grep -q "^  peak .* VmHWM" "$TMP/block.log" || fail "no measured peak in the ledger"

# A level that means nothing for the preset, and --recompute=all with --compare_data: refused, exit 2.
"$STEP" --preset=llama-tiny "${COMMON[@]}" --recompute=gelu >"$TMP/bad.log" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { cat "$TMP/bad.log"; fail "--recompute=gelu on llama-tiny: exit $rc, expected 2"; }
grep -q "llama-tiny's MLP is swiglu" "$TMP/bad.log" || { cat "$TMP/bad.log"; fail "the refusal does not say why"; }
echo "PASS"
