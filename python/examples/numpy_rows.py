"""NumPy kernels on the CPU, held to the contract from Python: a row sum in four lanes and a row
maximum, each with a control planted to fail its gate (the README's third quickstart is the first).

    python -m kernel_contract python/examples/numpy_rows.py
"""
import numpy as np

import kernel_contract as kc

np.seterr(invalid="ignore", over="ignore")  # gate 1 plants NaN and infinities on purpose


def row_sum4(x, y, rows, cols, keep_tail=True):
    """Four fp32 lanes: lane c % 4 adds column c in order, then (l0 + l1) + (l2 + l3)."""
    x = x.reshape(rows, cols)
    lanes = np.zeros((rows, 4), np.float32)
    whole = cols // 4 * 4
    for c in range(0, whole, 4):
        lanes += x[:, c:c + 4]
    if keep_tail and whole < cols:  # the ragged tail: the planted control forgets it
        lanes[:, : cols - whole] += x[:, whole:]
    y[:] = (lanes[:, 0] + lanes[:, 1]) + (lanes[:, 2] + lanes[:, 3])


@kc.kernel("py/rows/sum4/f32")
def sum4():
    return (kc.rows.sum("f32", "f32")
            .served(rows=[1, 5, 32], cols=[64, 1000])
            .tile("cols", 4)  # four lanes: every width is valid, edges at 3, 4, 5
            # Longest rounding chain: ceil(cols / 4) adds in a lane, then two levels of the tree.
            .sums("f32", lambda s: (s["cols"] + 3) // 4 + 2)
            .launch(lambda b: row_sum4(b["x"], b["y"], b.shape["rows"], b.shape["cols"])))


@kc.control("py/rows/sum4/ctl/lost_tail")
def sum4_lost_tail():
    # Whole tiles pass; a width that is not a multiple of 4 loses its last columns (gate 3's edges).
    return (kc.rows.sum("f32", "f32")
            .served(rows=[1, 5], cols=[64, 1000])
            .tile("cols", 4)
            .sums("f32", lambda s: (s["cols"] + 3) // 4 + 2)
            .control(3, "bound")
            .launch(lambda b: row_sum4(b["x"], b["y"], b.shape["rows"], b.shape["cols"], keep_tail=False)))


@kc.kernel("py/rows/max/f32")
def row_max():
    return (kc.rows.max("f32", "f32")
            .served(rows=[1, 7], cols=[32, 777])
            .launch(lambda b: np.max(b["x"].reshape(-1, b.shape["cols"]), axis=1, out=b["y"])))


@kc.control("py/rows/max/ctl/fmax")
def row_max_fmax():
    # np.fmax drops a NaN where float64's max keeps it: gate 1's classes differ.
    return (kc.rows.max("f32", "f32")
            .served(rows=[1, 7], cols=[32, 777])
            .control(1, "class_mismatch")
            .launch(lambda b: np.fmax.reduce(b["x"].reshape(-1, b.shape["cols"]), axis=1, out=b["y"])))
