#!/usr/bin/env python3
"""Writes the PyTorch reference fixtures that //model:torch_reference_test compares against.

Run by hand (not a build or CI dependency; Debian's python3-torch 1.13 is enough:
`apt-get install -y python3-torch`):
    /usr/bin/python3 tools/torch/torch_reference.py --out model/testdata/gpt_tiny_reference.bin
    /usr/bin/python3 tools/torch/torch_reference.py --preset=llama-tiny \
        --out model/testdata/llama_tiny_reference.bin

Two models, each written out as plain tensors in the C++ model's parameter layout
(model/param_layout.h, llm.c's order): per-layer tensors are stacked (L, ...), Linear weights are
(out, in), absent tensors (no position table with RoPE, no biases, no lm_head when tied) take no
room, and the loss uses only the first V of the Vp logit columns. Everything runs in float32.
  test-tiny (GPT-2: L=2, H=2, C=16, V=60 padded to Vp=64, block 16): LayerNorm, learned
    positions, GeLU (tanh) of 4C, multi-head attention, biases, LM head tied to wte.
  llama-tiny (L=2, C=32, 4 query heads and 2 K/V heads of 8, SwiGLU of F=64, V=Vp=64, block 16):
    RMSNorm (eps 1e-5), RoPE (theta 10000) on adjacent channel pairs (2i, 2i+1) through
    torch.view_as_complex on (..., hd/2, 2), as Meta's Llama and torchtitan apply it (the angle
    table is computed in float64 and rounded once, as the C++ does; torchtitan's float32 table
    differs by an ulp of the angle), SwiGLU (silu(gate) * up: the first F rows of fcw are the
    gate, the next F the up projection), grouped-query attention (K and V repeat_interleave'd over
    each group of 2 query heads), no biases, an untied LM head.

Recorded: the initial parameters (GPT-2 init, then the norm weights and biases moved off 1 and
0 so every gradient term is exercised; llama-tiny's qkv weights drawn at std 0.2, not 0.02, so the
attention is far from uniform and RoPE's rotation shows in every output), one batch (B=2, T=8),
the logits (B, T, Vp), the mean cross-entropy loss and the gradient of every parameter; then two
torch.optim.AdamW steps (weight decay on the embeddings and Linear weights only, as nanoGPT's
configure_optimizers), the loss before the second step, and the parameters after both.

Format (little-endian): magic b"GPT2REF1"; int32 x 12: version (1: GPT-2's switches; 2: the
switches below follow the optimizer's floats), L, H, C, V, Vp, block, B, T, bias, tied,
adamw_steps; float32 x 5: lr, beta1, beta2, eps, weight_decay; version 2 only: int32 x 5: norm
(0 LayerNorm, 1 RMSNorm), positions (0 learned, 1 RoPE), mlp (0 GeLU, 1 SwiGLU), kv_heads,
mlp_hidden, and float32 rope_theta; int32 num_params; int32 inputs[B*T]; int32 targets[B*T];
float32 params[N]; float32 logits[B*T*Vp]; float32 loss; float32 grads[N]; float32 loss_step2;
float32 params_after[N].
"""
import argparse
import math
import os
import struct

import torch
import torch.nn.functional as F

B, T = 2, 8
# eps = 1e-6 rather than nanoGPT's 1e-8: Adam's update g / (|g| + eps) has slope lr/eps near
# g = 0, and at GPT-2 init some gradients (the queries of the last layer) are ~1e-7, where a
# 1e-12 fp32 difference between the two implementations would move a parameter by lr*1e-4 with
# eps = 1e-8. With 1e-6 such elements still exercise eps, at 100x less sensitivity.
LR, BETA1, BETA2, EPS, WD = 1e-2, 0.9, 0.95, 1e-6, 0.1
SEED = 1337


class Config:
    """The fixture's model: model/gpt_config.h's preset of the same name."""

    def __init__(self, name, L, H, C, V, VP, block, kv_heads, hidden, llama, theta=10000.0):
        self.name, self.L, self.H, self.C, self.V, self.VP, self.block = name, L, H, C, V, VP, block
        self.KV, self.F, self.llama, self.theta = kv_heads, hidden, llama, theta
        self.hd = C // H
        # GPT-2's switches (LayerNorm, learned positions, GeLU, biases, tied), or Llama's (none of them).
        self.bias = self.tied = self.learned = not llama


PRESETS = {
    "test-tiny": Config("test-tiny", 2, 2, 16, 60, 64, 16, kv_heads=2, hidden=64, llama=False),
    "llama-tiny": Config("llama-tiny", 2, 4, 32, 64, 64, 16, kv_heads=2, hidden=64, llama=True),
}


def layout(c):
    """(name, shape, init std or None for "constant, then perturbed", decays), in the C++ order."""
    L, C, F, VP = c.L, c.C, c.F, c.VP
    qkv, fc = C + 2 * c.KV * c.hd, 2 * F if c.llama else F
    proj_std = 0.02 / math.sqrt(2 * L)
    rows = [("wte", (VP, C), 0.02, True)]
    if c.learned:
        rows.append(("wpe", (c.block, C), 0.02, True))
    rows.append(("ln1w", (L, C), None, False))
    if c.bias:
        rows.append(("ln1b", (L, C), None, False))
    # llama-tiny's q and k at std 0.2: a peaked attention, so that RoPE matters (see the docstring).
    rows.append(("qkvw", (L, qkv, C), 0.2 if c.llama else 0.02, True))
    if c.bias:
        rows.append(("qkvb", (L, qkv), None, False))
    rows.append(("attprojw", (L, C, C), proj_std, True))
    if c.bias:
        rows.append(("attprojb", (L, C), None, False))
    rows.append(("ln2w", (L, C), None, False))
    if c.bias:
        rows.append(("ln2b", (L, C), None, False))
    rows.append(("fcw", (L, fc, C), 0.02, True))
    if c.bias:
        rows.append(("fcb", (L, fc), None, False))
    rows.append(("fcprojw", (L, C, F), proj_std, True))
    if c.bias:
        rows.append(("fcprojb", (L, C), None, False))
    rows.append(("lnfw", (C,), None, False))
    if c.bias:
        rows.append(("lnfb", (C,), None, False))
    if not c.tied:
        rows.append(("lm_head", (VP, C), 0.02, True))
    return rows


def make_params(c, gen):
    params = {}
    for name, shape, std, _ in layout(c):
        if std is not None:
            t = torch.randn(shape, generator=gen) * std
        else:
            base = 1.0 if name in ("ln1w", "ln2w", "lnfw") else 0.0
            t = base + 0.1 * torch.randn(shape, generator=gen)
        params[name] = t.float().requires_grad_(True)
    return params


def rms_norm(x, w, eps=1e-5):
    """RMSNorm (Llama's): x / sqrt(mean(x^2) + eps) * w, no mean subtracted, no bias."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope_table(c):
    """(T, hd/2) complex64 rotations e^(i t theta^(-2j/hd)), torchtitan's precompute_freqs_cis."""
    freqs = 1.0 / (c.theta ** (torch.arange(0, c.hd, 2, dtype=torch.float64) / c.hd))
    angles = torch.outer(torch.arange(T, dtype=torch.float64), freqs)
    return torch.polar(torch.ones_like(angles), angles).to(torch.complex64)


def apply_rope(x, freqs_cis):
    """x: (B, T, heads, hd); adjacent pairs (2i, 2i+1) as complex numbers, rotated (torchtitan)."""
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis.view(1, T, 1, -1)).flatten(3)


def attention(c, p, l, h, freqs_cis):
    """Causal self-attention of layer l on h (B, T, C): (B, T, C) before the projection."""
    H, KV, hd, C = c.H, c.KV, c.hd, c.C
    qkv = h @ p["qkvw"][l].t()
    if c.bias:
        qkv = qkv + p["qkvb"][l]
    q, k, v = qkv.split([C, KV * hd, KV * hd], dim=-1)
    q, k, v = q.view(B, T, H, hd), k.view(B, T, KV, hd), v.view(B, T, KV, hd)
    if not c.learned:
        q, k = apply_rope(q, freqs_cis), apply_rope(k, freqs_cis)
    # Grouped-query attention: K/V head j serves query heads j * H/KV .. (j + 1) * H/KV - 1.
    k, v = k.repeat_interleave(H // KV, dim=2), v.repeat_interleave(H // KV, dim=2)
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    att = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
    att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
    return (att @ v).transpose(1, 2).reshape(B, T, C)


def mlp(c, p, l, h):
    """GeLU (tanh) of the up projection, or SwiGLU: silu(gate) * up, gate = fcw's first F rows;
    then the down projection, without its bias."""
    fc = h @ p["fcw"][l].t()
    if c.bias:
        fc = fc + p["fcb"][l]
    if c.llama:
        gate, up = fc.split(c.F, dim=-1)
        act = F.silu(gate) * up
    else:
        act = F.gelu(fc, approximate="tanh")
    return act @ p["fcprojw"][l].t()  # its bias is added after the residual, as GPT-2's order


def norm(c, x, w, b):
    return rms_norm(x, w) if c.llama else F.layer_norm(x, (c.C,), w, b, eps=1e-5)


def forward(c, p, idx, targets):
    x = p["wte"][idx]
    if c.learned:
        x = x + p["wpe"][:T]
    freqs_cis = None if c.learned else rope_table(c)
    for l in range(c.L):
        ln1b = p["ln1b"][l] if c.bias else None
        # x + y W^T, then + b: the fixture's rounding order since version 1.
        x = x + attention(c, p, l, norm(c, x, p["ln1w"][l], ln1b), freqs_cis) @ p["attprojw"][l].t()
        if c.bias:
            x = x + p["attprojb"][l]
        ln2b = p["ln2b"][l] if c.bias else None
        x = x + mlp(c, p, l, norm(c, x, p["ln2w"][l], ln2b))
        if c.bias:
            x = x + p["fcprojb"][l]
    x = norm(c, x, p["lnfw"], p["lnfb"] if c.bias else None)
    logits = x @ (p["wte"] if c.tied else p["lm_head"]).t()  # (B, T, Vp)
    loss = F.cross_entropy(logits[..., :c.V].reshape(-1, c.V), targets.reshape(-1))
    return logits, loss


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).float()


def header(c, n):
    """The fixture's header (see the docstring): version 1 for GPT-2's switches, 2 with the switches."""
    version = 2 if c.llama else 1
    blob = bytearray(b"GPT2REF1")
    blob += struct.pack("<12i", version, c.L, c.H, c.C, c.V, c.VP, c.block, B, T, int(c.bias), int(c.tied), 2)
    blob += struct.pack("<5f", LR, BETA1, BETA2, EPS, WD)
    if version == 2:
        blob += struct.pack("<5i", int(c.llama), int(not c.learned), int(c.llama), c.KV, c.F)
        blob += struct.pack("<f", c.theta)
    blob += struct.pack("<i", n)
    return blob


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="test-tiny", help="the model")
    ap.add_argument("--out", required=True, help="fixture to write")
    args = ap.parse_args()
    c = PRESETS[args.preset]

    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    p = make_params(c, gen)
    idx = torch.randint(c.V, (B, T), generator=gen)
    targets = torch.randint(c.V, (B, T), generator=gen)
    rows = layout(c)
    names = [n for n, _, _, _ in rows]
    params0 = flat(p[n] for n in names)

    logits, loss = forward(c, p, idx, targets)
    loss.backward()
    grads = flat(p[n].grad for n in names)

    decay = [p[n] for n, _, _, d in rows if d]
    no_decay = [p[n] for n, _, _, d in rows if not d]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
        lr=LR, betas=(BETA1, BETA2), eps=EPS)
    opt.step()
    opt.zero_grad()
    _, loss2 = forward(c, p, idx, targets)
    loss2.backward()
    opt.step()
    params2 = flat(p[n] for n in names)

    n = params0.numel()
    blob = header(c, n)
    blob += idx.to(torch.int32).numpy().tobytes()
    blob += targets.to(torch.int32).numpy().tobytes()
    blob += params0.numpy().tobytes()
    blob += logits.detach().float().numpy().tobytes()
    blob += struct.pack("<f", loss.item())
    blob += grads.numpy().tobytes()
    blob += struct.pack("<f", loss2.item())
    blob += params2.numpy().tobytes()
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, args.out)
    print(f"torch {torch.__version__}, {c.name}: {n} params, loss {loss.item():.6f} "
          f"(ln V = {math.log(c.V):.6f}), loss after one AdamW step {loss2.item():.6f}; "
          f"wrote {len(blob)} bytes to {args.out}")


if __name__ == "__main__":
    main()
