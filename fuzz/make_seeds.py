#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ (run from fuzz/; the output is committed).

Each seed is a small valid input or a known way of being wrong; libFuzzer mutates from these.
"""
import json
import os
import struct


def w(target, name, data):
    d = f"corpus/{target}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/{name}", "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


# token_file_fuzz: bytes B, T, uint16 LE vocab, then the file: uint16 LE tokens.
def tok(B, T, vocab, toks):
    return bytes([B, T]) + struct.pack("<H", vocab) + b"".join(struct.pack("<H", t) for t in toks)


w("token_file_fuzz", "gpt2_vocab_64_tokens", tok(1, 7, 50257 & 0xFFFF, [(i * 7919) % 50257 for i in range(64)]))
w("token_file_fuzz", "byte_vocab_text", tok(3, 15, 256, list(b"The quick brown fox jumps over the lazy dog, twice.")))
w("token_file_fuzz", "token_past_vocab", tok(0, 3, 100, [1, 2, 3, 100, 4, 5]))
w("token_file_fuzz", "too_short", tok(0, 31, 50000, [1, 2, 3]))
w("token_file_fuzz", "odd_byte_count", tok(0, 0, 50000, [1, 2]) + b"\x07")
w("token_file_fuzz", "empty_file", tok(0, 0, 50000, []))

# ceilings_fuzz: a ceilings JSON file.
good = {"machine": "AMD EPYC 9R14", "peak_flops": {"fp32": 1.9e11, "bf16": 3.8e11},
        "bandwidth_bytes_per_s": 2.8e10, "method": "fma probe + stream triad", "date": "2024-01-01T00:00:00Z",
        "gemm_flops_per_s": {"onednn/NT/M:256/N:2304/K:768/bias": 2.1e11, "openblas/NN/M:256/N:768/K:3072": 1.7e11}}
w("ceilings_fuzz", "measured.json", json.dumps(good, indent=2) + "\n")
w("ceilings_fuzz", "minimal.json", json.dumps({"peak_flops": {"fp32": 1e11}}))
w("ceilings_fuzz", "bad_dtype_key.json", json.dumps({"peak_flops": {"float32": 1e11}, "bandwidth_bytes_per_s": 1e10}))
w("ceilings_fuzz", "negative_bandwidth.json", json.dumps({"peak_flops": {"fp16": 1e11}, "bandwidth_bytes_per_s": -1}))
w("ceilings_fuzz", "wrong_types.json", '{"machine": 3, "peak_flops": [1, 2], "date": null}')
w("ceilings_fuzz", "not_json", "peak_flops: 1e11\n")

# gate_run_fuzz: a benchmark run as tools/bench writes it, and plain Google Benchmark JSON.
rc = {"format": "mlbench-run-context/1",
      "cpu": {"vendor": "AuthenticAMD", "model_name": "AMD EPYC", "family": 25, "model": 17, "stepping": 1,
              "isa_level": "AVX-512", "isa_flags": "AVX2 AVX-512F FMA", "logical_cpus": 2,
              "physical_cores": 2, "memory_gib": 24},
      "gemm": [{"name": "OpenBLAS", "version": "0.3.21", "kernel": "Haswell", "threads": 1}],
      "gpu": {"name": "none", "count": 0, "driver": "none", "runtime": "13.0", "cublas": "13.1.0", "nccl": "2.27.7"},
      "build": {"commit": "abc", "compiler": "g++ 12.2.0", "compilation_mode": "opt", "asserts": False,
                "target_isa": "AVX-512"},
      "date": "2026-11-30T00:00:00Z"}
ctx = {"date": "2026-11-30T00:00:00Z", "host_name": "ci", "num_cpus": 2, "mhz_per_cpu": 2600,
       "mlbench": {"run_context": rc, "suite": "quick", "commit": "abc", "build_type": "opt",
                   "date": "2026-11-30T00:00:00Z"}}


def entries(name, times, **kw):
    out = []
    for i, t in enumerate(times):
        e = {"name": name, "family_index": 0, "per_family_instance_index": 0, "run_name": name,
             "run_type": "iteration", "repetitions": len(times), "repetition_index": i, "threads": 1,
             "iterations": 100, "real_time": t, "cpu_time": t * 0.99, "time_unit": "us", "verified": 1,
             "items_per_second": 1e6 / t if t else 0}
        e.update(kw)
        out.append(e)
    return out


bm = entries("BM_Calibration/cpu/fma", [10, 10.2, 9.9]) + \
    entries("BM_Matmul/onednn/256", [120, 118, 125, 119, 121, 122, 117, 120, 123])
bm += [{"name": "BM_Matmul/onednn/256_median", "run_type": "aggregate", "aggregate_name": "median",
        "real_time": 120, "cpu_time": 119, "time_unit": "us"}]
bm += entries("BM_Gelu/cuda/bf16", [0], error_occurred=True, error_message="skipped: no CUDA device: none")
w("gate_run_fuzz", "bench_run.json", json.dumps({"context": ctx, "benchmarks": bm}, indent=1))
w("gate_run_fuzz", "plain_google_benchmark.json",
  json.dumps({"context": {"date": "x", "mlbench_run_context": json.dumps(rc)},
              "benchmarks": entries("BM_Add/4096", [1.5, 1.6, 1.4])}))
w("gate_run_fuzz", "unverified.json", json.dumps({"benchmarks": entries("BM_X", [2, 2.1], verified=0)}))
w("gate_run_fuzz", "string_time.json", '{"benchmarks":[{"name":"BM_A","run_type":"iteration","real_time":"fast"}]}')
# value("error_occurred", false) threw on a non-bool (found by this target).
w("gate_run_fuzz", "error_occurred_not_bool.json",
  '{"benchmarks":[{"name":"BM_A","run_type":"iteration","real_time":1,"error_occurred":"yes"}]}')
w("gate_run_fuzz", "zero_time.json", '{"benchmarks":[{"name":"BM_A","real_time":0,"cpu_time":1}]}')
# Aborted gate (found by this target): a number past the range of a double.
w("gate_run_fuzz", "number_overflow.json", '{"benchmarks":[{"name":"BM_A","real_time":476190.476190E47615}]}')
w("gate_run_fuzz", "truncated.json", json.dumps({"context": ctx, "benchmarks": bm})[:300])

# history_run_fuzz: the same run files as tools/history records them, and a Google Benchmark
# file with its bare NaN (a counter's coefficient of variation).
for name in ("bench_run.json", "plain_google_benchmark.json", "unverified.json", "truncated.json"):
    with open(f"corpus/gate_run_fuzz/{name}") as f:
        w("history_run_fuzz", name, f.read())
w("history_run_fuzz", "bare_nan.json",
  json.dumps({"context": {"date": "2026-11-30T00:00:00Z", "mlbench_run_context": json.dumps(rc)},
              "benchmarks": entries("BM_Add/4096", [1.5, 1.6, 1.4]) +
              [{"name": "BM_Add/4096_cv", "run_type": "aggregate", "aggregate_name": "cv", "x": 0}]})
  .replace('"x": 0', '"x": NaN'))
w("history_run_fuzz", "bad_date.json",
  json.dumps({"context": {"date": "yesterday", "mlbench_run_context": json.dumps(rc)},
              "benchmarks": entries("BM_Add/4096", [1.5])}))
# A full commit id in upper case from a dirty tree, dated at -12:00 (stored as UTC); a NaN time
# (refused, named); an Infinity counter (left out, named).
rc_zoned = json.loads(json.dumps(rc))
rc_zoned["build"]["commit"] = "0123456789ABCDEF0123456789ABCDEF01234567+dirty"
rc_zoned["date"] = "2026-12-01T12:30:00-12:00"
w("history_run_fuzz", "zoned_full_commit.json",
  json.dumps({"context": {"date": "2026-12-01T12:30:00-12:00", "mlbench_run_context": json.dumps(rc_zoned)},
              "benchmarks": entries("BM_Add/4096", [1.5, 1.6])}))
w("history_run_fuzz", "nan_time.json",
  json.dumps({"context": {"mlbench_run_context": json.dumps(rc_zoned)},
              "benchmarks": entries("BM_Add/4096", [1.5, 1.6])}).replace('"real_time": 1.6', '"real_time": NaN'))
w("history_run_fuzz", "inf_counter.json",
  json.dumps({"context": {"mlbench_run_context": json.dumps(rc_zoned)},
              "benchmarks": entries("BM_Add/4096", [1.5, 1.6])})
  .replace('"items_per_second": 666666.6666666666', '"items_per_second": Infinity'))

# gate_baseline_fuzz: a baseline file (tools/gate_baseline.h).
machine = {"cpu.vendor": "AuthenticAMD", "cpu.model_name": "AMD EPYC", "cpu.family": "25", "cpu.model": "17",
           "cpu.stepping": "1", "cpu.isa_level": "AVX-512", "cpu.logical_cpus": "2", "cpu.memory_gib": "24",
           "gemm.OpenBLAS": "0.3.21 Haswell", "gpu.name": "none", "gpu.count": "0",
           "build.compiler": "g++ 12.2.0", "build.compilation_mode": "opt", "build.asserts": "false",
           "build.target_isa": "AVX-512"}
rec = {"commit": "abc", "date": "2026-11-30T00:00:00Z"}
base = {"format": "mlbench-gate-baseline/2", "key": "AMD EPYC f25-m17-s1 AVX-512 x2, no GPU", "suite": "quick",
        "machine": machine,
        "provenance": {"commit": "abc", "date": "2026-11-30T00:00:00Z", "host_name": "ci", "build_type": "opt",
                       "source": "bench.json", "updated_cases": 3, "kept_cases": 0},
        "history": [{"commit": "abc", "date": "2026-11-30T00:00:00Z", "updated_cases": 3}],
        "context": ctx,
        "benchmarks": [dict(e, mlbench_recorded=rec) for e in bm if e.get("run_type") == "iteration"]}
w("gate_baseline_fuzz", "baseline.json", json.dumps(base, indent=1))
w("gate_baseline_fuzz", "old_format.json", json.dumps(dict(base, format="mlbench-gate-baseline/1")))
w("gate_baseline_fuzz", "no_cpu_family.json",
  json.dumps(dict(base, machine={k: v for k, v in machine.items() if k != "cpu.family"})))
w("gate_baseline_fuzz", "empty_benchmarks.json", json.dumps(dict(base, benchmarks=[], history=[])))
w("gate_baseline_fuzz", "not_an_object.json", "[1, 2, 3]")
# Crashed gate (found by this target): a listed file that is not an object; entries that are not
# objects with a string name (gate --update threw in MergeBaseline).
w("gate_baseline_fuzz", "entries_not_objects.json", json.dumps(dict(base, benchmarks=[1, {"name": 5}])))
w("gate_baseline_fuzz", "benchmarks_a_number.json", json.dumps(dict(base, benchmarks=7)))
# Failed property (found by this target): a --current that is itself a baseline, one repetition
# recorded before tags existed (untagged) beside the same repetition tagged with the current run's
# own commit and date; tagging the untagged one as well made the merged file repeat a sample.
it = [e for e in base["benchmarks"] if e["name"] == "BM_Matmul/onednn/256"]
untagged = {k: v for k, v in it[7].items() if k != "mlbench_recorded"}
w("gate_baseline_fuzz", "current_with_an_untagged_repetition.json",
  json.dumps(dict(base, benchmarks=base["benchmarks"][:-2] + [untagged] + base["benchmarks"][-2:]), indent=1))


# step_flags_fuzz: a byte for the CUDA inventory (0: none; else one device, cc_major = byte % 11),
# then "flag=value" lines.
def fl(cuda, lines):
    return bytes([cuda]) + "\n".join(lines).encode()


w("step_flags_fuzz", "cpu_defaults", fl(0, ["preset=gpt2"]))
w("step_flags_fuzz", "cpu_tiny", fl(0, ["preset=test-tiny", "batch=2", "seq=16", "steps=3", "warmup_steps=1",
                                        "cpu_gemm=openblas", "attention=causal"]))
w("step_flags_fuzz", "cuda_bf16", fl(9, ["device=cuda", "dtype=bf16", "batch=12", "seq=1024", "lr=3e-4",
                                         "beta2=0.99"]))
w("step_flags_fuzz", "custom_shape", fl(0, ["layers=2", "heads=3", "width=96", "vocab=1000", "block=128",
                                            "bias=false", "threads=2", "seed=7"]))
w("step_flags_fuzz", "bad_values", fl(0, ["heads=5", "width=768", "lr=nan", "steps=0", "vocab=-3", "dtype=fp8",
                                          "device=tpu"]))
# Overflowed the activation sizes (found by this target, UBSan).
w("step_flags_fuzz", "activations_overflow", fl(0, ["block=2147483647", "batch=2147483617"]))
# Overflowed int in hidden() = 4 * width before the parameter count was checked (found by this
# target, UBSan).
w("step_flags_fuzz", "width_overflow", fl(0, ["preset=gpt2-xl", "heads=1", "width=655444536"]))
w("step_flags_fuzz", "huge", fl(7, ["preset=gpt2-xl", "vocab=16777216", "width=65536", "block=2147483647",
                                    "seq=2147483647", "batch=2147483647", "peak_flops=1e300"]))
