"""Decode attention over a paged KV cache in Triton: bf16 q, k, v read through a page table, GQA,
f32 out and lse, an online softmax a page of keys at a time. Its control multiplies every slot of a
page by its weight, the masked ones too (p = 0 times an infinite value there is NaN: gate 1). Needs
a GPU with Triton and PyTorch (see softmax.py).

    python -m kernel_contract python/examples/triton/paged_decode.py
"""
import kernel_contract as kc
from kernel_contract.triton import jit, tl

PAGE, WARPS = 16, 4


@jit
def paged_decode(q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, pos_ptr, out_ptr, lse_ptr, rows, q_heads, kv_heads,
                 group, max_pages, scale, D: tl.constexpr, PAGE: tl.constexpr, MASK_V: tl.constexpr):
    sr, h = tl.program_id(0), tl.program_id(1)  # (sequence, row), q head
    s, kvh = sr // rows, h // group
    hi = tl.minimum(tl.load(lens_ptr + s), tl.load(pos_ptr + sr) + 1)  # keys [0, hi) are visible
    d, j0 = tl.arange(0, D), tl.arange(0, PAGE)
    q = tl.load(q_ptr + (sr * q_heads + h) * D + d).to(tl.float32)
    m = tl.max(tl.full([PAGE], float("-inf"), tl.float32), axis=0)
    l = tl.sum(tl.zeros([PAGE], tl.float32), axis=0)
    acc = tl.zeros([D], tl.float32)
    for t in range(0, tl.cdiv(hi, PAGE)):
        page = tl.load(table_ptr + s * max_pages + t).to(tl.int64)
        valid = t * PAGE + j0 < hi
        rows_at = ((page * PAGE + j0) * kv_heads + kvh) * D
        k = tl.load(k_ptr + rows_at[:, None] + d[None, :], mask=valid[:, None], other=0.0).to(tl.float32)
        sc = tl.where(valid, tl.sum(k * q[None, :], axis=1) * scale, float("-inf"))
        m_new = tl.maximum(m, tl.max(sc, axis=0))
        c = tl.where(m_new == float("-inf"), 0.0, m_new)  # nothing seen yet: nothing to overflow
        alpha, p = tl.exp(m - c), tl.exp(sc - c)
        if MASK_V:
            v = tl.load(v_ptr + rows_at[:, None] + d[None, :], mask=valid[:, None], other=0.0).to(tl.float32)
        else:  # the control: every slot of the page, weighted 0 where masked
            v = tl.load(v_ptr + rows_at[:, None] + d[None, :]).to(tl.float32)
        l = l * alpha + tl.sum(p, axis=0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m = m_new
    c = tl.where(m == float("-inf"), 0.0, m)
    tl.store(out_ptr + (sr * q_heads + h) * D + d, acc / l)
    tl.store(lse_ptr + sr * q_heads + h, c + tl.log(l))


SIG = {a: "*bf16" for a in ("q_ptr", "k_ptr", "v_ptr")}
SIG.update({a: "*i32" for a in ("table_ptr", "lens_ptr", "pos_ptr")})
SIG.update({"out_ptr": "*fp32", "lse_ptr": "*fp32", "rows": "i32", "q_heads": "i32", "kv_heads": "i32", "group": "i32",
            "max_pages": "i32", "scale": "fp32"})
kc.triton.launch("triton/paged_decode/f32", paged_decode, SIG,
                 [{"D": dd, "PAGE": PAGE, "MASK_V": True, "num_warps": WARPS} for dd in (64, 128)])
kc.triton.launch("triton/paged_decode/ctl/masked_inf_nan", paged_decode, SIG,
                 [{"D": 64, "PAGE": PAGE, "MASK_V": False, "num_warps": WARPS}])


def entry(name, served, mask_v):
    def launch(b):
        g = kc.attention.geometry("paged", b.shape, page=PAGE)
        paged_decode[(g["seqs"] * g["rows"], g["q_heads"])](
            b["q"], b["k"], b["v"], b["page_table"], b["lens"], b["pos"], b["out"], b["lse"], g["rows"], g["q_heads"],
            g["kv_heads"], g["group"], g["max_pages"], g["scale"], D=g["d"], PAGE=PAGE, MASK_V=mask_v,
            num_warps=WARPS)

    # Scores: the dot (exact bf16 products, d adds), * scale, and inside tl.exp a product by log2(e)
    # of s - max (up to twice the largest score): counted as 3 roundings of a score.
    steps = {"p": "f32", "score_ops": 3}
    return (kc.attention.decode(cache="paged", out="f32", steps=steps, page=PAGE)
            .served(served)
            .tile("keys", PAGE)  # a page a tile: the running max moves at most once a page
            # A page's weights are added in a chain of at most PAGE (and the p v product's rounding);
            # each page then rescales and adds to the running sums (2 roundings a page).
            .sums("f32", lambda s: 2 * -(-s["keys"] // PAGE) + PAGE + 1, ops=4)  # acc / l: div.full.f32, 4 u
            .ulp("expf", 2)  # ex2.approx.f32
            .ulp("logf", 4)  # lg2.approx.f32 times ln 2, then + c
            .launches(name)
            .launch(launch))


@kc.kernel("triton/paged_decode/f32", backend="cuda")
def paged():
    return entry("triton/paged_decode/f32", [("seqs", [1, 3]), ("rows", [1, 4]), ("kv_heads", [1, 2]),
                                             ("group", [1, 4]), ("d", [64, 128]), ("keys", [1, 40, 300])], True)


@kc.control("triton/paged_decode/ctl/masked_inf_nan", backend="cuda")
def paged_masked_inf_nan():
    return entry("triton/paged_decode/ctl/masked_inf_nan", [("seqs", [3]), ("rows", [4]), ("kv_heads", [1]),
                                                            ("group", [2]), ("d", [64]), ("keys", [1, 300])],
                 False).control(1, "class_mismatch")
