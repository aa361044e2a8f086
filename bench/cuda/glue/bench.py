#!/usr/bin/env python3
"""The glue kernels side by side on one GPU: the embedding gather, RoPE (with and without the fused
q/k norm) and the L2-norm rows, ours (libkc_glue_bench.so: the served kernels' own .cuh launchers,
called by ctypes) against eager PyTorch, torch.compile of the same function, and a copy moving the
same bytes (bytes read + bytes written: torch's copy_ of a flat buffer of half of them, which is a
cudaMemcpyAsync), at decode and prompt shapes of current models. One timing method for all
(bench/cuda/torch_timing.py: input sets together >= 4x the L2, back-to-back launches between two
events, the median of 7). Ours is launched by one ctypes call on prepared arguments, a peer by
PyTorch's own Python calls: at decode sizes each time includes its launch cost. Prints one markdown
table; '% copy' is the copy's time over ours (>= 85% is the target), 'vs best peer' the faster
peer's time over ours (>= 1.00x: none faster), 'check' our output against the eager one.
Usage: bench.py [path/to/libkc_glue_bench.so] [--quick]"""
import ctypes
import glob
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_timing import time_us  # noqa: E402

QUICK = "--quick" in sys.argv
args = [a for a in sys.argv[1:] if not a.startswith("--")]


def find_lib():
    if args:
        return args[0]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    hits = sorted(glob.glob(os.path.join(root, "build*", "**", "libkc_glue_bench.so"), recursive=True))
    if not hits:
        sys.exit("bench.py: no libkc_glue_bench.so under build*/: build the target kc_glue_bench first")
    return hits[0]


lib = ctypes.CDLL(find_lib())
P, I, L, D, Fl = ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_double, ctypes.c_float
lib.kc_glue_embedding.argtypes = [P, P, P, I, L, L, P]
lib.kc_glue_rope.argtypes = [P, P, P, P, P, P, P, I, I, I, I, D, Fl, I, I, P]
lib.kc_glue_l2norm.argtypes = [P, P, P, P, I, I, Fl, P]
for f in (lib.kc_glue_embedding, lib.kc_glue_rope, lib.kc_glue_l2norm):
    f.restype = I

dev = torch.device("cuda")
L2 = torch.cuda.get_device_properties(dev).L2_cache_size
EPS = 1e-6
THETA = 10000.0
g = torch.Generator(device="cuda").manual_seed(1)


# Every launch below goes on this stream (torch's current one, the one its peers use). The pointers
# of each input set are taken once, so a timed launch is one ctypes call on plain integers.
STREAM = torch.cuda.current_stream().cuda_stream


def ptr(t):
    return t.data_ptr() if t is not None else None


def launcher(fn, what, argsets):
    """f(i): our launch on input set i (argument tuples built beforehand); a launcher's error raises."""
    def f(i):
        rc = fn(*argsets[i])
        if rc:
            raise RuntimeError(f"{what}: launcher returned {rc}")
    return f


def n_sets(set_bytes):
    return max(2, min(64, math.ceil(4 * L2 / max(set_bytes, 1))))


def rand_bf16(*shape):
    return (torch.rand(*shape, device=dev, generator=g) * 4 - 2).to(torch.bfloat16)


def copy_us(moved_bytes, sets):
    """A copy moving the same bytes (read + write): a flat bf16 buffer of half of them, copied."""
    n = max(1, moved_bytes // 4)
    src = [torch.empty(n, dtype=torch.bfloat16, device=dev) for _ in range(sets)]
    dst = [torch.empty(n, dtype=torch.bfloat16, device=dev) for _ in range(sets)]
    return time_us(lambda i: dst[i].copy_(src[i]), sets, max(40, 2 * sets))


def compiled(fn):
    try:
        return torch.compile(fn, dynamic=False)
    except Exception as e:  # a torch without a working compiler: say so in the table
        print(f"torch.compile: {e}", file=sys.stderr)
        return None


def timed(f, sets):
    try:
        return time_us(f, sets, max(40, 2 * sets))
    except Exception as e:
        print(f"peer failed: {e}", file=sys.stderr)
        return float("nan")


rows = []


def record(kernel, shape, moved, sets, ours, eager, comp, check=None):
    cp = copy_us(moved, sets)
    peers = [t for t in (eager, comp) if t == t]
    best = min(peers) if peers else float("nan")
    rows.append((kernel, shape, moved / ours / 1e3, ours, cp, eager, comp, cp / ours, best / ours, check))


# ---- embedding gather ----
def bench_embedding(vocab, hidden, tokens):
    table = rand_bf16(vocab, hidden)
    sets = n_sets(2 * tokens * hidden * 2)
    ids = [torch.randint(0, vocab, (tokens,), device=dev, generator=g, dtype=torch.int32) for _ in range(sets)]
    ids[0][-1] = vocab - 1
    ys = [torch.empty(tokens, hidden, dtype=torch.bfloat16, device=dev) for _ in range(sets)]
    a = [(ptr(table), ptr(ids[i]), ptr(ys[i]), tokens, vocab, hidden * 2, STREAM) for i in range(sets)]
    ours = time_us(launcher(lib.kc_glue_embedding, "embedding", a), sets, max(40, 2 * sets))
    ids_l = [x.long() for x in ids]  # F.embedding takes int64 ids
    eager = timed(lambda i: F.embedding(ids_l[i], table), sets)
    cf = compiled(lambda t, x: F.embedding(x, t))
    comp = timed(lambda i: cf(table, ids_l[i]), sets) if cf else float("nan")
    same = torch.equal(ys[0], F.embedding(ids_l[0], table))
    record("embedding/gather bf16", f"vocab {vocab}, hidden {hidden}, tokens {tokens}", 2 * tokens * hidden * 2, sets,
           ours, eager, comp, "bit-equal" if same else "DIFFERS")


# ---- RoPE (+ q/k norm) ----
def rope_ref(q, k, pos, qw, kw, norm, interleaved):
    """The eager model code: RMSNorm module (Qwen3's q_norm/k_norm) then rotate_half RoPE in fp32."""
    d = q.shape[-1]
    inv = 1.0 / (THETA ** (torch.arange(0, d, 2, device=q.device, dtype=torch.float32) / d))
    ang = pos.float()[:, None] * inv[None, :]
    c, s = torch.cos(ang)[:, None, :], torch.sin(ang)[:, None, :]

    def rms(x, w):
        xf = x.float()
        return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)).to(torch.bfloat16)

    def rot(x):
        xf = x.float()
        if interleaved:
            a, b = xf[..., 0::2], xf[..., 1::2]
            return torch.stack((a * c - b * s, b * c + a * s), -1).flatten(-2).to(torch.bfloat16)
        a, b = xf[..., : d // 2], xf[..., d // 2:]
        return torch.cat((a * c - b * s, b * c + a * s), -1).to(torch.bfloat16)

    if norm == 1:
        q, k = rms(q, qw), rms(k, kw)
    q, k = rot(q), rot(k)
    if norm == 2:
        q, k = rms(q, qw), rms(k, kw)
    return q, k


def bench_rope(tokens, heads, kv, dim, norm, interleaved=False):
    nb = 2 * tokens * (heads + kv) * dim * 2
    sets = n_sets(nb)
    qs = [rand_bf16(tokens, heads, dim) for _ in range(sets)]
    ks = [rand_bf16(tokens, kv, dim) for _ in range(sets)]
    pos = [torch.randint(0, 1 << 17, (tokens,), device=dev, generator=g, dtype=torch.int32) for _ in range(sets)]
    qw, kw = rand_bf16(dim), rand_bf16(dim)
    qo = [torch.empty_like(q) for q in qs]
    ko = [torch.empty_like(k) for k in ks]
    pairs = 1 if interleaved else 0
    a = [(ptr(qs[i]), ptr(ks[i]), ptr(pos[i]), ptr(qw), ptr(kw), ptr(qo[i]), ptr(ko[i]), tokens, heads, kv, dim, THETA,
          EPS, pairs, norm, STREAM) for i in range(sets)]
    ours = time_us(launcher(lib.kc_glue_rope, "rope", a), sets, max(40, 2 * sets))
    eager = timed(lambda i: rope_ref(qs[i], ks[i], pos[i], qw, kw, norm, interleaved), sets)
    cf = compiled(lambda q, k, p: rope_ref(q, k, p, qw, kw, norm, interleaved))
    comp = timed(lambda i: cf(qs[i], ks[i], pos[i]), sets) if cf else float("nan")
    rq, _ = rope_ref(qs[0], ks[0], pos[0], qw, kw, norm, interleaved)
    err = (qo[0].float() - rq.float()).abs().max().item()
    name = "rope/" + ("interleaved" if interleaved else "halves") + ["", "+norm before", "+norm after"][norm]
    record(name, f"tokens {tokens}, heads {heads}+{kv}, dim {dim}", nb, sets, ours, eager, comp, f"max |d| {err:.3g}")


# ---- L2-norm rows ----
def l2_ref(x, r):
    h = x + r if r is not None else x
    hf = h.float()
    return h, (hf * torch.rsqrt(hf.pow(2).sum(-1, keepdim=True) + EPS)).to(torch.bfloat16)


def bench_l2(rows_, cols, residual):
    nb = (4 if residual else 2) * rows_ * cols * 2
    sets = n_sets(nb)
    xs = [rand_bf16(rows_, cols) for _ in range(sets)]
    rs = [rand_bf16(rows_, cols) for _ in range(sets)] if residual else [None] * sets
    hs = [torch.empty_like(x) for x in xs] if residual else [None] * sets
    ys = [torch.empty_like(x) for x in xs]
    a = [(ptr(xs[i]), ptr(rs[i]), ptr(hs[i]), ptr(ys[i]), rows_, cols, EPS, STREAM) for i in range(sets)]
    ours = time_us(launcher(lib.kc_glue_l2norm, "l2norm", a), sets, max(40, 2 * sets))
    eager = timed(lambda i: l2_ref(xs[i], rs[i]), sets)
    cf = compiled(l2_ref)
    comp = timed(lambda i: cf(xs[i], rs[i]), sets) if cf else float("nan")
    err = (ys[0].float() - l2_ref(xs[0], rs[0])[1].float()).abs().max().item()
    record("l2norm/" + ("add_rows" if residual else "rows"), f"rows {rows_}, cols {cols}", nb, sets, ours, eager, comp,
           f"max |d| {err:.3g}")


torch._dynamo.config.cache_size_limit = 256
for vocab, hidden in ((128256, 4096), (256000, 8192)) if not QUICK else ((128256, 4096),):
    for tokens in (1, 32, 8192):
        bench_embedding(vocab, hidden, tokens)
for tokens, heads, kv, dim in ((1, 32, 8, 128), (64, 32, 8, 128), (8192, 32, 8, 128), (8192, 64, 8, 64),
                               (8192, 16, 2, 256), (64, 16, 2, 256)):
    for norm in (0, 1, 2):
        bench_rope(tokens, heads, kv, dim, norm)
    if dim == 128:
        bench_rope(tokens, heads, kv, dim, 0, interleaved=True)
for rows_, cols in ((1, 4096), (32, 8192), (8192, 4096), (8192, 8192)):
    for residual in (False, True):
        bench_l2(rows_, cols, residual)

props = torch.cuda.get_device_properties(dev)
print(f"# glue kernels on {props.name} (torch {torch.__version__}, L2 {L2 >> 20} MiB)")
print("Method: bench/cuda/torch_timing.py for every column (input sets together >= 4x the L2, back-to-back")
print("launches between two events, median of 7). 'copy' = a copy moving the same bytes (read + written).")
print("'% copy' = copy us / our us; 'vs best peer' = the faster of eager and torch.compile over ours.\n")
print("| kernel | shape | GB/s | us | copy us | eager us | compile us | % copy | vs best peer | check |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
for k, s, gbps, ours, cp, eager, comp, pc, vs, chk in rows:
    def f(v, fmt="{:.1f}"):
        return fmt.format(v) if v == v else "-"
    print(f"| {k} | {s} | {gbps:.0f} | {ours:.1f} | {cp:.1f} | {f(eager)} | {f(comp)} | {100 * pc:.0f}% | "
          f"{f(vs, '{:.2f}x')} | {chk} |")
