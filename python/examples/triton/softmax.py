"""Softmax over rows in Triton, f32 in and out, held to the contract on CUDA; its control drops a
NaN (gate 1). Needs a GPU with Triton and PyTorch; elsewhere it registers, the cuda backend says why
it cannot run, and gate 5 says it did not run.

    python -m kernel_contract python/examples/triton/softmax.py
"""
import kernel_contract as kc
from kernel_contract.triton import jit, tl

BLOCK, WARPS = 1024, 4


@jit
def softmax_rows(x_ptr, y_ptr, cols, BLOCK: tl.constexpr, KEEP_NAN: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, y_row = x_ptr + row * cols, y_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for c in range(0, cols, BLOCK):  # the row's maximum (a NaN lane makes its terms NaN below)
        x = tl.load(x_row + c + offs, mask=c + offs < cols, other=float("-inf"))
        if not KEEP_NAN:
            x = tl.where(x == x, x, float("-inf"))  # the control: a NaN read as -inf
        m = tl.maximum(m, x)
    mx = tl.max(m, axis=0)
    acc = tl.zeros([BLOCK], tl.float32)
    for c in range(0, cols, BLOCK):  # each lane's sum of exp(x - max), in order
        x = tl.load(x_row + c + offs, mask=c + offs < cols, other=float("-inf"))
        if not KEEP_NAN:
            x = tl.where(x == x, x, float("-inf"))
        acc += tl.where(c + offs < cols, tl.exp(x - mx), 0.0)
    s = tl.sum(acc, axis=0)
    for c in range(0, cols, BLOCK):
        x = tl.load(x_row + c + offs, mask=c + offs < cols, other=float("-inf"))
        if not KEEP_NAN:
            x = tl.where(x == x, x, float("-inf"))
        tl.store(y_row + c + offs, tl.exp(x - mx) / s, mask=c + offs < cols)


SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "cols": "i32"}
kc.triton.launch("triton/softmax/f32", softmax_rows, SIG, [{"BLOCK": BLOCK, "KEEP_NAN": True, "num_warps": WARPS}])
kc.triton.launch("triton/softmax/ctl/drops_nan", softmax_rows, SIG,
                 [{"BLOCK": BLOCK, "KEEP_NAN": False, "num_warps": WARPS}])


def entry(name, keep_nan):
    def launch(b):
        softmax_rows[(b.shape["rows"],)](b["x"], b["y"], b.shape["cols"], BLOCK=BLOCK, KEEP_NAN=keep_nan,
                                         num_warps=WARPS)

    return (kc.rows.softmax("f32", "f32")
            .served(rows=[1, 7, 64], cols=[64, 1000, 4096])
            .tile("cols", BLOCK)
            # A lane adds ceil(cols / BLOCK) terms in order; tl.sum then folds a thread's
            # BLOCK / (32 WARPS) lanes in order and the 32 WARPS threads in a tree (log2: 7).
            # ops: the division, div.full.f32 (2 ulps: 4 u).
            .sums("f32", lambda s: -(-s["cols"] // BLOCK) + BLOCK // (32 * WARPS) + 7, ops=4)
            # tl.exp is ex2.approx.f32 (2 ulps) of (x - max) * log2(e): the two roundings of z = x - max
            # move e^z by |z| ulps, up to 88 in a term (|z * log2(e)| <= 127). In the sum each term's
            # error weighs e^z / S: the weighted mean of |z| is at most 5.6 at 4,096 columns (the
            # worst puts every other term at one z), so S carries 2 + 5.6 ulps, not the term's 90.
            .ulp("exp: ex2.approx and its argument's two roundings, in the term (90) and in the sum (8)", 90 + 8)
            .launches(name)
            .launch(launch))


@kc.kernel("triton/softmax/f32", backend="cuda")
def softmax():
    return entry("triton/softmax/f32", True)


@kc.control("triton/softmax/ctl/drops_nan", backend="cuda")
def softmax_drops_nan():
    return entry("triton/softmax/ctl/drops_nan", False).control(1, "class_mismatch")
