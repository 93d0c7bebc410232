#!/usr/bin/env python3
"""Writes memory_roofs_run.json: a hand-shaped //micro:elementwise file whose cases carry the
traffic counters (traffic_read_bytes, traffic_write_bytes, traffic_in_place,
traffic_streaming_stores, working_set_bytes, roof_bytes/s), plus one matmul case without them.
memory_roofs_ceilings.json (hand-written beside it) is the same machine's ceilings file with
memory_roofs_bytes_per_s and cache_levels.

The machine ("Test CPU 9000"): fp32 peak 240 GFLOP/s; STREAM copy (the single slope) 32 GB/s;
DRAM roofs per kind read 40, write_nt 20, copy 30, triad 33, in_place 38 GB/s; L1 (48 KiB),
L2 (1 MiB), L3 (32 MiB) roofs per kind. The cases (fp32, counted bytes as accounting counts them):

  adamw N:16777216  36 GB/s, working set 256 MiB: above copy (30) and the single slope (32),
                    95% of its in_place roof (38): must NOT be flagged
  adamw N:4194304   57 GB/s, no working set (DRAM): 150% of its in_place roof: must be flagged
  scale, add, gelu  N:16777216, 80-91% of their copy / triad / copy DRAM roofs
  scale N:4096      400 GB/s, working set 32 KiB: L1's copy roof (800 GB/s) with the file; its
                    roof_bytes/s is the start-up DRAM copy roof (30 GB/s), far above which it is
                    flagged without the file
  add N:65536       120 GB/s, working set 768 KiB: L2's triad roof (160 GB/s) with the file
  matmul 1024^3     200 GFLOP/s at 100 FLOP/byte, no traffic counters: the single slope

    python3 tools/report/testdata/make_memory_roof_fixtures.py   # run from the repository root
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = 2.4e11    # fp32 FLOP/s
SINGLE = 3.2e10  # STREAM copy: the run's peak_bytes/s
N = 16777216


def elementwise(op, n, flops_el, read_el, write_el, bytes_per_s, roof, working_set=None, in_place=0):
    """One case of `op` on n fp32 elements at bytes_per_s, held by its binary to `roof` bytes/s."""
    name = f"BM_Elementwise/cpu/{op}/N:{n}"
    intensity = flops_el / (read_el + write_el)
    flops = bytes_per_s * intensity
    e = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
         "iterations": 10, "real_time": (read_el + write_el) * n / bytes_per_s * 1e3, "time_unit": "ms",
         "FLOP/s": flops, "bytes/s": bytes_per_s, "intensity": intensity, "peak_FLOP/s": PEAK,
         "peak_bytes/s": SINGLE, "pct_of_peak": round(100 * flops / PEAK, 3),
         "pct_of_roofline": round(100 * flops / min(PEAK, intensity * roof), 3), "verified": 1,
         "traffic_read_bytes": read_el * n, "traffic_write_bytes": write_el * n,
         "traffic_in_place": in_place, "traffic_streaming_stores": 0, "roof_bytes/s": roof,
         "label": "peak: measured at start-up: test fixture"}
    if working_set is not None:
        e["working_set_bytes"] = working_set
    return e


def main():
    benchmarks = [
        elementwise("adamw", N, 16, 16, 12, 3.6e10, 3.8e10, working_set=4 * 4 * N, in_place=1),
        elementwise("adamw", 4194304, 16, 16, 12, 5.7e10, 3.8e10, in_place=1),
        elementwise("scale", N, 1, 4, 4, 2.7e10, 3.0e10, working_set=2 * 4 * N),
        elementwise("add", N, 1, 8, 4, 3.0e10, 3.3e10, working_set=3 * 4 * N),
        elementwise("gelu", N, 9, 4, 4, 2.4e10, 3.0e10, working_set=2 * 4 * N),
        elementwise("scale", 4096, 1, 4, 4, 4.0e11, 3.0e10, working_set=2 * 4 * 4096),
        elementwise("add", 65536, 1, 8, 4, 1.2e11, 3.3e10, working_set=3 * 4 * 65536),
    ]
    mm = "BM_Matmul/cpu/fp32/M:1024/K:1024/N:1024/manual_time"
    benchmarks.append({"name": mm, "run_name": mm, "run_type": "iteration", "repetitions": 1,
                       "repetition_index": 0, "iterations": 10, "real_time": 10.7, "time_unit": "ms",
                       "FLOP/s": 2.0e11, "bytes/s": 2.0e9, "intensity": 100, "peak_FLOP/s": PEAK,
                       "peak_bytes/s": SINGLE, "pct_of_peak": 83.333, "pct_of_roofline": 83.333, "verified": 1,
                       "label": "peak: measured at start-up: test fixture"})
    context = {"date": "2026-12-04T00:00:00+00:00", "host_name": "fixture", "executable": "elementwise",
               "num_cpus": 2, "mhz_per_cpu": 3000, "cpu_model": "Test CPU 9000", "library_build_type": "release"}
    with open(os.path.join(HERE, "memory_roofs_run.json"), "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
