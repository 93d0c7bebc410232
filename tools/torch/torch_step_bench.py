#!/usr/bin/env python3
"""PyTorch eager's GPT-2 (or Llama) train step on the CPU, timed like //macro:gpt_step, for a side-by-side.

Same model and step as gpt_step's CPU defaults: GPT-2 124M (nanoGPT's model: 12 layers, 12
heads, width 768, vocab padded to 50304, LM head tied to the token embedding, biases on,
scaled_dot_product_attention with is_causal), batch 4, sequence 64, fp32 (or --dtype=bf16:
torch.autocast on the CPU in bfloat16 around the forward and the loss, fp32 master weights and
AdamW, as `gpt_step --dtype=bf16`), AdamW (lr 6e-4,
betas 0.9/0.95, weight decay 0.1 on 2-D tensors), one fixed random batch, 3 warm-up + 10 timed
steps, every step = forward, backward, optimizer step, zero_grad, loss.item(). Threads: the
same count as gpt_step (--threads, default every core).

--preset=llama-124m: the same model as `gpt_step --preset=llama-124m` (model/gpt_config.h): 12
layers, width 768, 12 query heads and 4 K/V heads (grouped-query attention, K and V repeated over
each group as torchtitan's repeat_kv), RMSNorm (eps 1e-5), RoPE (theta 10000, adjacent channel
pairs through torch.view_as_complex, as Meta's Llama and torchtitan), a SwiGLU MLP of hidden
width 2048 (one Linear for gate | up, as the C++ model's fc), no biases, an untied LM head,
vocab 32000; GPT-2's init (std 0.02, residual projections 0.02/sqrt(2L)), as the C++ model.

Not a build or CI dependency. PyTorch 2.x in a virtual environment; PyPI's Linux wheel pulls the
CUDA runtime wheels too (the environment is about 5 GiB; unused on a CPU-only machine). The
figures in results/ were taken with exactly this install (torch 2.5.1; the script needs 2.x for
scaled_dot_product_attention):
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.5.1
    /tmp/torchenv/bin/python tools/torch/torch_step_bench.py --threads=2
    bazel run //macro:gpt_step -- --threads=2          # the same shapes, threads and steps
    /tmp/torchenv/bin/python tools/torch/torch_step_bench.py --preset=llama-124m --threads=2
    bazel run //macro:gpt_step -- --preset=llama-124m --threads=2
"""
import argparse
import json
import math
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c, h):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(c)
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.ln2 = nn.LayerNorm(c)
        self.fc = nn.Linear(c, 4 * c)
        self.fcproj = nn.Linear(4 * c, c)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.fcproj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, layers, heads, width, vocab, block):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(block, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.lnf = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as GPT-2
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight",)) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for blk in self.blocks:
            x = blk(x)
        logits = self.lm_head(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class RMSNorm(nn.Module):
    """Llama's norm: x / sqrt(mean(x^2) + eps) * weight, no mean subtracted, no bias."""

    def __init__(self, c, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(c))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_table(head_size, block, theta):
    """(block, hd/2) complex64 rotations, torchtitan's precompute_freqs_cis."""
    freqs = 1.0 / (theta ** (torch.arange(0, head_size, 2).float() / head_size))
    return torch.polar(torch.ones(block, head_size // 2), torch.outer(torch.arange(block).float(), freqs))


def apply_rope(x, freqs_cis):
    """x: (B, T, heads, hd), the pairs (2i, 2i+1) rotated as complex numbers (torchtitan)."""
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis[None, :, None, :]).flatten(3).type_as(x)


class LlamaBlock(nn.Module):
    def __init__(self, c, h, kv, hidden):
        super().__init__()
        self.h, self.kv, self.hd, self.hidden = h, kv, c // h, hidden
        self.ln1 = RMSNorm(c)
        self.qkv = nn.Linear(c, c + 2 * kv * self.hd, bias=False)  # q | k | v
        self.proj = nn.Linear(c, c, bias=False)
        self.ln2 = RMSNorm(c)
        self.fc = nn.Linear(c, 2 * hidden, bias=False)  # gate | up
        self.fcproj = nn.Linear(hidden, c, bias=False)

    def forward(self, x, freqs_cis):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split([c, self.kv * self.hd, self.kv * self.hd], dim=2)
        q = apply_rope(q.view(b, t, self.h, self.hd), freqs_cis)
        k = apply_rope(k.view(b, t, self.kv, self.hd), freqs_cis)
        v = v.view(b, t, self.kv, self.hd)
        k, v = (z.repeat_interleave(self.h // self.kv, dim=2) for z in (k, v))  # repeat_kv
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        gate, up = self.fc(self.ln2(x)).split(self.hidden, dim=2)
        return x + self.fcproj(F.silu(gate) * up)


class Llama(nn.Module):
    def __init__(self, layers, heads, kv_heads, width, hidden, vocab, block, theta=10000.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(LlamaBlock(width, heads, kv_heads, hidden) for _ in range(layers))
        self.lnf = RMSNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)  # untied
        self.register_buffer("freqs_cis", rope_table(width // heads, block, theta), persistent=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight",)) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.wte(idx)
        for blk in self.blocks:
            x = blk(x, self.freqs_cis[:t])
        logits = self.lm_head(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


# --preset: the model's shape (model/gpt_config.h's presets of the same name); the flags override it.
PRESETS = {
    "gpt2": dict(layers=12, heads=12, width=768, vocab=50304, tokens=50257),
    "llama-124m": dict(layers=12, heads=12, width=768, vocab=32000, tokens=32000, kv_heads=4, mlp_hidden=2048),
}


def make_model(a):
    """The preset's model with the flags over it, and the number of real tokens."""
    p = dict(PRESETS[a.preset])
    for k in ("layers", "heads", "width", "vocab", "kv_heads", "mlp_hidden"):
        if getattr(a, k) is not None:
            p[k] = getattr(a, k)
    block = max(1024, a.seq)
    if a.preset == "llama-124m":
        model = Llama(p["layers"], p["heads"], p["kv_heads"], p["width"], p["mlp_hidden"], p["vocab"], block)
    else:
        model = GPT(p["layers"], p["heads"], p["width"], p["vocab"], block)
    return model, min(p["tokens"], p["vocab"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=0, help="0: every core (os.cpu_count())")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="gpt2",
                    help="the model: gpt2 (GPT-2 124M) or llama-124m (RMSNorm, RoPE, SwiGLU, 4 K/V heads)")
    ap.add_argument("--layers", type=int, default=None, help="default: the preset's")
    ap.add_argument("--heads", type=int, default=None, help="default: the preset's")
    ap.add_argument("--width", type=int, default=None, help="default: the preset's")
    ap.add_argument("--vocab", type=int, default=None, help="default: the preset's")
    ap.add_argument("--kv_heads", type=int, default=None, help="llama-124m: K/V heads (default 4)")
    ap.add_argument("--mlp_hidden", type=int, default=None, help="llama-124m: SwiGLU's hidden width (default 2048)")
    ap.add_argument("--warmup_steps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32",
                    help="bf16: torch.autocast('cpu', dtype=torch.bfloat16) around forward and loss")
    ap.add_argument("--json_out", default="", help="also write the result as JSON here")
    a = ap.parse_args()
    threads = a.threads or os.cpu_count()
    torch.set_num_threads(threads)
    torch.manual_seed(a.seed)
    model, tokens = make_model(a)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=6e-4, betas=(0.9, 0.95))
    idx = torch.randint(tokens, (a.batch, a.seq))
    targets = torch.randint(tokens, (a.batch, a.seq))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"torch {torch.__version__}, {threads} threads "
          f"(MKLDNN {torch.backends.mkldnn.is_available()}, {torch.backends.cpu.get_cpu_capability()}), "
          f"{a.preset}: {n_params} parameters, B={a.batch} T={a.seq} {a.dtype}"
          f"{' (autocast bfloat16)' if a.dtype == 'bf16' else ''}", flush=True)

    times, loss = [], float("nan")
    for i in range(a.warmup_steps + a.steps):
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.dtype == "bf16"):
            l = model(idx, targets)
        l.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        loss = l.item()
        dt = time.perf_counter() - t0
        kind = "warm-up" if i < a.warmup_steps else "timed"
        print(f"step {i + 1:3d} {kind:7s} | loss {loss:.4f} | {dt * 1e3:9.2f} ms | "
              f"{a.batch * a.seq / dt:8.1f} tokens/s", flush=True)
        if i >= a.warmup_steps:
            times.append(dt)
    total = sum(times)
    result = {
        "torch": torch.__version__, "preset": a.preset, "threads": threads, "params": n_params,
        "batch": a.batch, "seq": a.seq, "dtype": a.dtype, "steps": len(times),
        "tokens_per_second": a.batch * a.seq * len(times) / total,
        "ms_per_step_median": 1e3 * statistics.median(times),
        "ms_per_step_min": 1e3 * min(times), "ms_per_step_max": 1e3 * max(times),
        "loss": loss,
    }
    print(f"tokens/s {result['tokens_per_second']:.1f} = {len(times)} steps x B={a.batch} x "
          f"T={a.seq} / {total:.3f} s; step median {result['ms_per_step_median']:.1f} ms "
          f"(min {result['ms_per_step_min']:.1f}, max {result['ms_per_step_max']:.1f})")
    if a.json_out:
        tmp = a.json_out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=2)
        os.replace(tmp, a.json_out)


if __name__ == "__main__":
    main()
