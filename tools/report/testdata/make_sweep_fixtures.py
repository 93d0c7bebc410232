#!/usr/bin/env python3
"""Writes sweep_machine_a.json and sweep_machine_b.json: hand-shaped //tools:sweep files for the
scaling map's tests (gpt2 and llama-124m, fp32, B in {1,2,4,8}, T in {32,64,128}, 2 repetitions).

MFU grows linearly in log2(B*T) up to a cap (A: 0.52 of it at B*T = 32, +0.10 per doubling; B:
0.62, +0.12) and loses 7% of the cap (x the preset's scale) per doubling of T. One point is
planted off the trend: machine A, gpt2, B:1 T:128 is 8 points above its formula, the best at B*T = 128 and 1.7 points
above the line through its neighbours, beyond the 1.5-point spread (B's spread is 3 points).
Every knee is at B*T = 256 (B:8 T:32); no other point breaks its trend.
Machine B's file has no mlbench_machine_key (the report derives it from the run context), and
its llama-124m B:8 T:128 has no prediction (predicted_* counters missing).

    python3 tools/report/testdata/make_sweep_fixtures.py   # run from the repository root
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = {"gpt2": (124439808, 1.00), "llama-124m": (134105856, 0.75)}  # params, MFU scale


def run_context(model, vendor, family, model_no, isa, cpus, peak):
    return {
        "cpu": {"model_name": model, "vendor": vendor, "family": family, "model": model_no, "stepping": 1,
                "isa_level": isa, "logical_cpus": cpus, "memory_gib": 32},
        "gemm": [{"name": "OpenBLAS", "version": "0.3.21", "kernel": "Haswell"}],
        "gpu": {"name": "none", "count": 0},
        "build": {"compiler": "g++ 12.2.0", "compilation_mode": "opt", "asserts": "off", "target_isa": isa},
    }


MACHINES = {
    "a": dict(key="1a2b3c4d", cpu="AMD EPYC 7B13", vendor="AuthenticAMD", family=25, model=1, isa="AVX2",
              cpus=2, peak=1.0e11, cap=0.45, base=0.52, slope=0.10, spread=0.015),
    "b": dict(key=None, cpu="Intel Xeon Platinum 8481C", vendor="GenuineIntel", family=6, model=143,
              isa="AVX-512", cpus=4, peak=2.4e11, cap=0.20, base=0.62, slope=0.12, spread=0.03),
}


def mfu(m, preset, b, t):
    k = math.log2(b * t / 32)
    v = m["cap"] * PRESETS[preset][1] * (min(1.0, m["base"] + m["slope"] * k) - 0.07 * math.log2(t / 32))
    if m is MACHINES["a"] and preset == "gpt2" and (b, t) == (1, 128):
        v += 0.08  # the planted trend break
    return round(v, 4)


def entry(m, preset, b, t, rep):
    params, _ = PRESETS[preset]
    mid = mfu(m, preset, b, t)
    spread = m["spread"]
    value = mid + (spread / 2 if rep == 0 else -spread / 2)
    flops_per_step = 6 * params * b * t + 12 * 12 * 768 * b * t * t
    attention = 12 * 12 * 768 * b * t * t
    ms = flops_per_step / (value * m["peak"]) * 1e3
    mid_ms = flops_per_step / (mid * m["peak"]) * 1e3
    name = f"BM_Sweep/{preset}/cpu/fp32/B:{b}/T:{t}/recompute:none"
    e = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 2, "repetition_index": rep,
         "threads": 1, "iterations": 3, "real_time": ms, "cpu_time": ms, "time_unit": "ms",
         "label": f"{preset} cpu fp32 B:{b} T:{t}; peak: measured at start-up",
         "batch": b, "seq": t, "tokens_per_step": b * t, "params": params, "mfu": value, "hfu": value,
         "ms_per_step": ms, "tokens_per_second": b * t / (ms / 1e3), "flops_per_second": flops_per_step / (ms / 1e3),
         "flops_per_step": flops_per_step, "attention_flops_per_step": attention,
         "attention_flops_share": attention / flops_per_step, "peak_flops": m["peak"],
         "predicted_ms": mid_ms * (1.1 if b * t <= 64 else 0.95), "predicted_gemm_ms": mid_ms * 0.7,
         "predicted_attention_ms": mid_ms * 0.1, "predicted_memory_ops_ms": mid_ms * 0.1,
         "predicted_adamw_ms": mid_ms * 0.05, "measured_over_predicted": 1.0,
         "mem_peak_bytes_measured": 16 * params + 40000 * b * t + 3e8, "mem_peak_bytes": 16 * params + 38000 * b * t,
         "mem_params_bytes": 4 * params, "mem_grads_bytes": 4 * params, "mem_adamw_bytes": 8 * params,
         "mem_activations_bytes": 38000 * b * t, "disturbed": 0,
         "mfu_min": mid - spread / 2, "mfu_max": mid + spread / 2}
    if m is MACHINES["a"] and preset == "gpt2" and (b, t) == (1, 32):
        e["predicted_ms"] = mid_ms * 1.6  # outside the +-25% band
    if m is MACHINES["b"] and preset == "llama-124m" and (b, t) == (8, 128):
        for k in [k for k in e if k.startswith("predicted_")] + ["measured_over_predicted"]:
            del e[k]
    e["measured_over_predicted"] = e["ms_per_step"] / e["predicted_ms"] if "predicted_ms" in e else None
    if e["measured_over_predicted"] is None:
        del e["measured_over_predicted"]
    return e


def write(tag):
    m = MACHINES[tag]
    rc = run_context(m["cpu"], m["vendor"], m["family"], m["model"], m["isa"], m["cpus"], m["peak"])
    ctx = {"date": "2026-12-05T10:00:00+00:00", "host_name": f"host-{tag}", "num_cpus": m["cpus"],
           "mlbench_run_context": json.dumps(rc), "mlbench_machine": f"{m['cpu']} x{m['cpus']}",
           "mlbench_sweep": json.dumps({"format": "mlbench-sweep/1", "presets": list(PRESETS),
                                        "batch": [1, 2, 4, 8], "seq": [32, 64, 128], "dtype": ["fp32"],
                                        "recompute": ["none"], "repetitions": 2})}
    if m["key"]:
        ctx["mlbench_machine_key"] = m["key"]
    benchmarks = [entry(m, p, b, t, r) for p in PRESETS for t in (32, 64, 128) for b in (1, 2, 4, 8) for r in (0, 1)]
    with open(os.path.join(HERE, f"sweep_machine_{tag}.json"), "w") as f:
        json.dump({"context": ctx, "benchmarks": benchmarks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    write("a")
    write("b")
