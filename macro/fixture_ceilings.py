#!/usr/bin/env python3
"""Writes a ceilings file for this CPU with given figures, as //micro:ceilings would, so that the
end-to-end tests of gpt_step, gpt_decode and ddp_step run without the start-up probes (a
sub-second FMA loop and a STREAM copy each time): they test the step, not the probe, and a
fixture peak does not vary with the machine's load.

    fixture_ceilings.py OUT [--peak=1e12] [--bf16_peak=4e12] [--bandwidth=1e10] [--triad=1e10]
                        [--read=0] [--in_place=0] [--gemm_tiny_bt=16 --gemm_rate=1e9
                        [--gemm_rate_onednn_sgemm=R] [--gemm_rate_openblas=R]] [--cache_resident]

--gemm_tiny_bt=BT adds GEMM rates for the test-tiny model's 15 step shapes at B*T = BT (the
keys //micro:ceilings writes for the default step), each --gemm_rate FLOP/s on onednn, and on
onednn_sgemm and openblas where their rates are given (then --cpu_gemm=auto chooses from the
file alone). --cache_resident
labels the bandwidth as `ceilings --sizes=quick` does (4 MiB STREAM arrays, bandwidth_cache_resident).
Unless --cache_resident, the file has the DRAM memory roofs of every kind of traffic
(memory_roofs_bytes_per_s): read and in_place as given (0: 1.4x the bandwidth), copy the bandwidth,
triad the triad (0: the bandwidth), write_nt the bandwidth.
"""
import argparse
import json
import os


def cpu_model():
    with open("/proc/cpuinfo") as f:
        return next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))


def tiny_gemm_rates(bt, backend_rates):
    c, v = 16, 64  # test-tiny: width 16, vocabulary padded to 64
    rates = {}
    for b, rate in backend_rates.items():
        if rate <= 0:
            continue
        for i, o, bias in [(c, 3 * c, True), (c, c, True), (c, 4 * c, True), (4 * c, c, True), (c, v, False)]:
            rates[f"{b}/NT/M:{bt}/N:{o}/K:{i}" + ("/bias" if bias else "")] = rate
            rates[f"{b}/NN/M:{bt}/N:{i}/K:{o}"] = rate
            rates[f"{b}/TN/M:{o}/N:{i}/K:{bt}"] = rate
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--peak", type=float, default=1e12, help="fp32 peak, FLOP/s")
    ap.add_argument("--bf16_peak", type=float, default=0, help="the CPU bf16 peak, FLOP/s (0: none)")
    ap.add_argument("--bandwidth", type=float, default=1e10, help="STREAM copy, bytes/s")
    ap.add_argument("--triad", type=float, default=1e10,
                    help="STREAM triad, bytes/s as STREAM counts them (0: none; gpt_step then measures one)")
    ap.add_argument("--gemm_tiny_bt", type=int, default=0, help="B*T of test-tiny GEMM rates to add (0: none)")
    ap.add_argument("--gemm_rate", type=float, default=1e9, help="each onednn GEMM rate, FLOP/s")
    ap.add_argument("--gemm_rate_onednn_sgemm", type=float, default=0, help="each onednn_sgemm rate (0: none)")
    ap.add_argument("--gemm_rate_openblas", type=float, default=0, help="each openblas rate (0: none)")
    ap.add_argument("--read", type=float, default=0, help="the read roof, bytes/s (0: 1.4x --bandwidth)")
    ap.add_argument("--in_place", type=float, default=0, help="the in-place roof, bytes/s (0: 1.4x --bandwidth)")
    ap.add_argument("--cache_resident", action="store_true", help="label the bandwidth cache-resident")
    a = ap.parse_args()
    doc = {"machine": cpu_model(), "peak_flops": {"fp32": a.peak}, "bandwidth_bytes_per_s": a.bandwidth,
           "method": "test fixture (macro/fixture_ceilings.py)", "date": "2026-12-01T00:00:00Z"}
    if a.triad > 0:
        doc["triad_bytes_per_s"] = a.triad
    if a.bf16_peak > 0:
        doc["peak_flops"]["bf16"] = a.bf16_peak
    if a.cache_resident:
        doc["stream_array_bytes"] = 4 << 20
        doc["bandwidth_cache_resident"] = True
    else:
        doc["memory_roofs_bytes_per_s"] = {
            "read": a.read or 1.4 * a.bandwidth, "write_nt": a.bandwidth, "copy": a.bandwidth,
            "triad": a.triad or a.bandwidth, "in_place": a.in_place or 1.4 * a.bandwidth}
        doc["memory_roofs_spread"] = {k: 0.0 for k in doc["memory_roofs_bytes_per_s"]}
    if a.gemm_tiny_bt > 0:
        doc["gemm_flops_per_s"] = tiny_gemm_rates(
            a.gemm_tiny_bt,
            {"onednn": a.gemm_rate, "onednn_sgemm": a.gemm_rate_onednn_sgemm, "openblas": a.gemm_rate_openblas})
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
