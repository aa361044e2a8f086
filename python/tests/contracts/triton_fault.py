"""A Triton kernel that stores far outside its buffer (an illegal address on the GPU) between two
that pass: the fault is an ERROR naming the entry, and the entry after it runs in a fresh process
(tests/test_triton_examples.py reads the run). Elsewhere they register and the backend says why."""
import kernel_contract as kc
from kernel_contract.triton import jit, tl


@jit
def row_sum(x_ptr, y_ptr, cols, FAR: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    if FAR:
        y_ptr += 1 << 40  # a terabyte past the output: no mapping there
    tl.store(y_ptr + row, tl.sum(x, axis=0))


SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "cols": "i32"}
# Declared at import, before gate 5 compiles them (the test runs with --no-limits: no records kept).
for _name, _far in (("a_copy", False), ("b_far_store", True), ("c_copy", False)):
    kc.triton.launch(f"py/triton_fault/{_name}", row_sum, SIG, [{"FAR": _far, "BLOCK": 16, "num_warps": 1}])


def entry(name, far):
    def launch(b):
        row_sum[(b.shape["rows"],)](b["x"], b["y"], b.shape["cols"], FAR=far, BLOCK=16, num_warps=1)

    # tl.sum folds at most 16 terms: a depth of 16 covers its tree (log2 16 = 4) with room.
    return (kc.rows.sum("f32", "f32").served(rows=[1, 5], cols=[8, 16]).sums("f32", 16)
            .launches(name).launch(launch))


@kc.kernel("py/triton_fault/a_copy", backend="cuda")
def first():
    return entry("py/triton_fault/a_copy", False)


@kc.kernel("py/triton_fault/b_far_store", backend="cuda")
def far():
    return entry("py/triton_fault/b_far_store", True)


@kc.kernel("py/triton_fault/c_copy", backend="cuda")
def last():
    return entry("py/triton_fault/c_copy", False)
