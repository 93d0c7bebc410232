#!/usr/bin/env bash
# Which peak ddp_step's per-rank MFU divides by, on the CPU (a rank's device is its share of the
# cores; macro/rank_peak.h):
#  1. 2 ranks: each rank's MFU equals (local FLOPs per step / its median step time) / (the fp32
#     FMA peak measured with that rank's thread count, by //macro:fma_probe run as the ranks run:
#     2 processes at once), within 15%. A peak measured with the rank's threads and then scaled
#     by threads / cores again (the old bug) doubles the MFU.
#  2. 1 rank, --threads=1: ddp_step's MFU is within 15% of gpt_step's at the same shapes, threads
#     and peak source (both measure the FMA peak with their one thread at start-up).
# Timing on a machine others share: a check passes when one of up to 5 attempts agrees; a peak
# counted with the wrong share is off by x2 in every attempt.
# Args: DDP_STEP GPT_STEP FMA_PROBE
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
ddp=$(readlink -f "$1"); gpt=$(readlink -f "$2"); probe=$(readlink -f "$3")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
uptime || true
cfg=(--preset=test-mini --batch=4 --seq=128 --warmup_steps=2 --steps=8 --device=cpu)

echo "== 1. two ranks: per-rank MFU against the FMA peak measured with a rank's threads"
ok=0
for attempt in 1 2 3 4 5; do
  timeout 180 mpirun -np 2 --oversubscribe "$ddp" "${cfg[@]}" --json_out="$tmp/ddp2.json" > "$tmp/ddp2.log" 2>&1 \
    || { cat "$tmp/ddp2.log"; fail "2-rank run"; }
  grep -A3 "per-rank figures" "$tmp/ddp2.log"
  grep "^denominator" "$tmp/ddp2.log"
  grep -q "used as is: measured at start-up with this run's own" "$tmp/ddp2.log" \
    || fail "the log must say the rank's own measured peak is used as is"
  threads=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads_per_rank"])' "$tmp/ddp2.json") \
    || fail "no threads_per_rank in the JSON"
  # Measured as the ranks measure theirs: one process per rank, placed by mpirun as the ranks
  # were, all at once (cores that share FMA units give each less together than alone).
  timeout 60 mpirun -np 2 --oversubscribe "$probe" --threads="$threads" > "$tmp/probe.txt" 2>&1 \
    || { cat "$tmp/probe.txt"; fail "fma_probe"; }
  peaks=$(sed -n 's/^fma_peak_flops=\([^ ]*\) .*/\1/p' "$tmp/probe.txt" | tr '\n' ' ')
  [[ $(wc -w <<< "$peaks") == 2 ]] || { cat "$tmp/probe.txt"; fail "fma_probe gave no figures"; }
  if python3 - "$tmp/ddp2.json" $peaks <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
probes = [float(x) for x in sys.argv[2:]]
probe = sum(probes) / len(probes)  # the probes' processes are not the ranks: their mean
print("fma_probe, 2 processes at once: " + ", ".join(f"{p / 1e9:.1f}" for p in probes) + " GFLOP/s")
assert len(j["per_rank"]) == 2, j["per_rank"]
good = True
for r in j["per_rank"]:
    expect = j["local_flops_per_step"] / (r["step_ms_median"] / 1e3) / probe
    ratio = r["mfu"] / expect
    print(f"rank {r['rank']}: MFU {100 * r['mfu']:.2f}%; {j['local_flops_per_step']:.4g} FLOPs / "
          f"{r['step_ms_median']:.2f} ms / {probe / 1e9:.1f} GFLOP/s (FMA, {j['threads_per_rank']} thread(s)) "
          f"= {100 * expect:.2f}%: ratio {ratio:.3f} (the rank's own peak {r['peak_flops'] / 1e9:.1f} GFLOP/s)")
    good = good and abs(ratio - 1) <= 0.15
sys.exit(0 if good else 1)
PY
  then ok=1; break; fi
  echo "attempt $attempt: outside 15%"
done
[[ $ok == 1 ]] || fail "per-rank MFU is not (local FLOPs / median step) / (FMA peak with the rank's threads) within 15% in 5 attempts"

echo "== 2. one rank: ddp_step's MFU against gpt_step's (--threads=1)"
one=("${cfg[@]}" --threads=1)
# mpirun binds the 1-rank job to one core; gpt_step gets the same binding where taskset exists.
bind=(); command -v taskset > /dev/null && bind=(taskset -c 0)
ok=0
for attempt in 1 2 3 4 5; do
  "${bind[@]}" "$gpt" "${one[@]}" --benchmark_out="$tmp/gpt.json" --benchmark_out_format=json > "$tmp/gpt.log" 2>&1 \
    || { cat "$tmp/gpt.log"; fail "gpt_step run"; }
  timeout 120 mpirun -np 1 "$ddp" "${one[@]}" --json_out="$tmp/ddp1.json" > "$tmp/ddp1.log" 2>&1 \
    || { cat "$tmp/ddp1.log"; fail "1-rank run"; }
  grep "^peak" "$tmp/gpt.log"
  grep "^denominator" "$tmp/ddp1.log"
  if python3 - "$tmp/gpt.json" "$tmp/ddp1.json" <<'PY'
import json, sys
g = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["name"].startswith("BM_GptStep/")]
assert len(g) == 1, g
d = json.load(open(sys.argv[2]))
gm, dm = g[0]["mfu"], d["per_rank"][0]["mfu"]
ratio = dm / gm
print(f"gpt_step MFU {100 * gm:.2f}% (peak {g[0]['peak_flops'] / 1e9:.1f} GFLOP/s), 1-rank ddp_step "
      f"{100 * dm:.2f}% (peak {d['per_rank'][0]['peak_flops'] / 1e9:.1f} GFLOP/s): ratio {ratio:.3f}")
sys.exit(0 if abs(ratio - 1) <= 0.15 else 1)
PY
  then ok=1; break; fi
  echo "attempt $attempt: outside 15%"
done
[[ $ok == 1 ]] || fail "1-rank ddp_step's MFU is not within 15% of gpt_step's in 5 attempts"

echo "== 3. two ranks, --peak_flops (the whole machine's figure): each rank gets its share"
timeout 120 mpirun -np 2 --oversubscribe "$ddp" "${cfg[@]}" --steps=1 --warmup_steps=0 --peak_flops=1e12 \
  --json_out="$tmp/flag.json" > "$tmp/flag.log" 2>&1 || { cat "$tmp/flag.log"; fail "--peak_flops run"; }
grep "^denominator" "$tmp/flag.log"
python3 - "$tmp/flag.json" <<'PY' || fail "--peak_flops must be scaled to the rank's share of the cores"
import json, math, sys
j = json.load(open(sys.argv[1]))
t, c = j["threads_per_rank"], j["cores"]
want = 1e12 * min(t, c) / c
for r in j["per_rank"]:
    assert math.isclose(r["peak_flops"], want, rel_tol=1e-9), (r, want)
rule = j["peak_rule"]
assert ("a whole-machine figure (--peak_flops)" in rule) if t < c else rule.startswith("used as is"), rule
print(f"each rank's peak {want / 1e9:.1f} GFLOP/s = 1e12 x {min(t, c)}/{c} cores; rule: {j['peak_rule']}")
PY
echo "PASS"
