"""RMS norm over rows in Triton, f32 in and out: y = x / sqrt(mean x^2 + eps) * w. Its control sums
the squares in fp16 (gate 4). Needs a GPU with Triton and PyTorch (see softmax.py).

    python -m kernel_contract python/examples/triton/rms_norm.py
"""
import kernel_contract as kc
from kernel_contract.triton import jit, tl

BLOCK, WARPS, EPS = 1024, 4, 1e-6


@jit
def rms_norm_rows(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr, HALF_SUM: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, y_row = x_ptr + row * cols, y_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    if HALF_SUM:  # the control: each lane's sum of squares kept in fp16
        acc16 = tl.zeros([BLOCK], tl.float16)
        for c in range(0, cols, BLOCK):
            x = tl.load(x_row + c + offs, mask=c + offs < cols, other=0.0)
            acc16 += (x * x).to(tl.float16)
        ss = tl.sum(acc16.to(tl.float32), axis=0)
    else:
        acc = tl.zeros([BLOCK], tl.float32)
        for c in range(0, cols, BLOCK):
            x = tl.load(x_row + c + offs, mask=c + offs < cols, other=0.0)
            acc += x * x
        ss = tl.sum(acc, axis=0)
    r = 1.0 / tl.sqrt(ss / cols + eps)  # not cols.to(): Triton passes a cols of 1 as a constexpr int
    for c in range(0, cols, BLOCK):
        x = tl.load(x_row + c + offs, mask=c + offs < cols, other=0.0)
        w = tl.load(w_ptr + c + offs, mask=c + offs < cols, other=0.0)
        tl.store(y_row + c + offs, x * r * w, mask=c + offs < cols)


SIG = {"x_ptr": "*fp32", "w_ptr": "*fp32", "y_ptr": "*fp32", "cols": "i32", "eps": "fp32"}
kc.triton.launch("triton/rms_norm/f32", rms_norm_rows, SIG, [{"BLOCK": BLOCK, "HALF_SUM": False, "num_warps": WARPS}])
kc.triton.launch("triton/rms_norm/ctl/half_sum", rms_norm_rows, SIG,
                 [{"BLOCK": BLOCK, "HALF_SUM": True, "num_warps": WARPS}])


def entry(name, half):
    def launch(b):
        rms_norm_rows[(b.shape["rows"],)](b["x"], b["w"], b["y"], b.shape["cols"], EPS, BLOCK=BLOCK, HALF_SUM=half,
                                          num_warps=WARPS)

    return (kc.rows.rms_norm("f32", "f32", eps=EPS)
            .served(rows=[1, 7, 64], cols=[64, 1000, 4096])
            .tile("cols", BLOCK)
            # Each square rounds once, a lane adds ceil(cols / BLOCK) of them in order, tl.sum folds a
            # thread's lanes in order and the threads in a tree. Then, in u: / cols and 1 / it are
            # div.full.f32 (2 ulps: 4 u each), sqrt.approx.f32 (1 ulp: 2 u), + eps, x * r and * w (1 u each).
            .sums("f32", lambda s: 1 - (-s["cols"] // BLOCK) + BLOCK // (32 * WARPS) + 7, ops=4 + 4 + 2 + 3)
            .launches(name)
            .launch(launch))


@kc.kernel("triton/rms_norm/f32", backend="cuda")
def rms_norm():
    return entry("triton/rms_norm/f32", False)


@kc.control("triton/rms_norm/ctl/half_sum", backend="cuda")
def rms_norm_half_sum():
    return entry("triton/rms_norm/ctl/half_sum", True).control(4, "bound")
