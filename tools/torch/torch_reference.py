#!/usr/bin/env python3
"""Writes the PyTorch reference fixture that //model:torch_reference_test compares against.

Run by hand (not a build or CI dependency; Debian's python3-torch 1.13 is enough):
    /usr/bin/python3 tools/torch/torch_reference.py --out model/testdata/gpt_tiny_reference.bin

A tiny GPT-2 (the test-tiny preset: L=2, H=2, C=16, V=60 padded to Vp=64, block 16) written
out as plain tensors in the C++ model's parameter layout (model/param_layout.h, llm.c's order):
per-layer tensors are stacked (L, ...), Linear weights are (out, in), the LM head is tied to
wte, and the loss uses only the first V of the Vp logit columns. Everything runs in float32.

Recorded: the initial parameters (GPT-2 init, then LayerNorm weights and biases moved off 1 and
0 so every gradient term is exercised), one batch (B=2, T=8), the logits (B, T, Vp), the mean
cross-entropy loss and the gradient of every parameter; then two torch.optim.AdamW steps
(weight decay on the 2-D tensors only, as nanoGPT's configure_optimizers), the loss before the
second step, and the parameters after both.

Format (little-endian): magic b"GPT2REF1"; int32 x 12: version=1, L, H, C, V, Vp, block, B, T,
bias, tied, adamw_steps; float32 x 5: lr, beta1, beta2, eps, weight_decay; int32 num_params;
int32 inputs[B*T]; int32 targets[B*T]; float32 params[N]; float32 logits[B*T*Vp];
float32 loss; float32 grads[N]; float32 loss_step2; float32 params_after[N].
"""
import argparse
import math
import os
import struct

import torch
import torch.nn.functional as F

L, H, C, V, VP, BLOCK = 2, 2, 16, 60, 64, 16
B, T = 2, 8
# eps = 1e-6 rather than nanoGPT's 1e-8: Adam's update g / (|g| + eps) has slope lr/eps near
# g = 0, and at GPT-2 init some gradients (the queries of the last layer) are ~1e-7, where a
# 1e-12 fp32 difference between the two implementations would move a parameter by lr*1e-4 with
# eps = 1e-8. With 1e-6 such elements still exercise eps, at 100x less sensitivity.
LR, BETA1, BETA2, EPS, WD = 1e-2, 0.9, 0.95, 1e-6, 0.1
SEED = 1337

# (name, shape, init std or None for "constant, then perturbed", decays)
LAYOUT = [
    ("wte", (VP, C), 0.02, True),
    ("wpe", (BLOCK, C), 0.02, True),
    ("ln1w", (L, C), None, False),
    ("ln1b", (L, C), None, False),
    ("qkvw", (L, 3 * C, C), 0.02, True),
    ("qkvb", (L, 3 * C), None, False),
    ("attprojw", (L, C, C), 0.02 / math.sqrt(2 * L), True),
    ("attprojb", (L, C), None, False),
    ("ln2w", (L, C), None, False),
    ("ln2b", (L, C), None, False),
    ("fcw", (L, 4 * C, C), 0.02, True),
    ("fcb", (L, 4 * C), None, False),
    ("fcprojw", (L, C, 4 * C), 0.02 / math.sqrt(2 * L), True),
    ("fcprojb", (L, C), None, False),
    ("lnfw", (C,), None, False),
    ("lnfb", (C,), None, False),
]


def make_params(gen):
    params = {}
    for name, shape, std, _ in LAYOUT:
        if std is not None:
            t = torch.randn(shape, generator=gen) * std
        else:
            base = 1.0 if name in ("ln1w", "ln2w", "lnfw") else 0.0
            t = base + 0.1 * torch.randn(shape, generator=gen)
        params[name] = t.float().requires_grad_(True)
    return params


def forward(p, idx, targets):
    hs = C // H
    x = p["wte"][idx] + p["wpe"][:T]
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        h = F.layer_norm(x, (C,), p["ln1w"][l], p["ln1b"][l], eps=1e-5)
        qkv = h @ p["qkvw"][l].t() + p["qkvb"][l]
        q, k, v = qkv.split(C, dim=-1)
        q = q.view(B, T, H, hs).transpose(1, 2)
        k = k.view(B, T, H, hs).transpose(1, 2)
        v = v.view(B, T, H, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ p["attprojw"][l].t() + p["attprojb"][l]
        h = F.layer_norm(x, (C,), p["ln2w"][l], p["ln2b"][l], eps=1e-5)
        h = F.gelu(h @ p["fcw"][l].t() + p["fcb"][l], approximate="tanh")
        x = x + h @ p["fcprojw"][l].t() + p["fcprojb"][l]
    x = F.layer_norm(x, (C,), p["lnfw"], p["lnfb"], eps=1e-5)
    logits = x @ p["wte"].t()  # (B, T, Vp), tied LM head
    loss = F.cross_entropy(logits[..., :V].reshape(-1, V), targets.reshape(-1))
    return logits, loss


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).float()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="fixture to write")
    args = ap.parse_args()

    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    p = make_params(gen)
    idx = torch.randint(V, (B, T), generator=gen)
    targets = torch.randint(V, (B, T), generator=gen)
    names = [n for n, _, _, _ in LAYOUT]
    params0 = flat(p[n] for n in names)

    logits, loss = forward(p, idx, targets)
    loss.backward()
    grads = flat(p[n].grad for n in names)

    decay = [p[n] for n, _, _, d in LAYOUT if d]
    no_decay = [p[n] for n, _, _, d in LAYOUT if not d]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
        lr=LR, betas=(BETA1, BETA2), eps=EPS)
    opt.step()
    opt.zero_grad()
    _, loss2 = forward(p, idx, targets)
    loss2.backward()
    opt.step()
    params2 = flat(p[n] for n in names)

    n = params0.numel()
    blob = bytearray(b"GPT2REF1")
    blob += struct.pack("<12i", 1, L, H, C, V, VP, BLOCK, B, T, 1, 1, 2)
    blob += struct.pack("<5f", LR, BETA1, BETA2, EPS, WD)
    blob += struct.pack("<i", n)
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
    print(f"torch {torch.__version__}: {n} params, loss {loss.item():.6f} "
          f"(ln V = {math.log(V):.6f}), loss after one AdamW step {loss2.item():.6f}; "
          f"wrote {len(blob)} bytes to {args.out}")


if __name__ == "__main__":
    main()
