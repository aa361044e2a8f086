"""A stated NaN rule said in Python: its check reads the case's inputs and outputs as arrays."""
import numpy as np

import kernel_contract as kc


def launch(b):
    np.max(b["x"].reshape(-1, b.shape["cols"]), axis=1, out=b["y"])


def nan_rows_give_nan(case):
    x = case["x"].reshape(-1, case.shape["cols"])
    bad = np.isnan(x).any(axis=1) & ~np.isnan(case["y"])
    return f"row {int(np.argmax(bad))} holds a NaN but its max is not NaN" if bad.any() else ""


@kc.kernel("py/rule/kept")
def kept():
    return kc.rows.max("f32", "f32").served(rows=[1, 3], cols=[16]).rule("a NaN row's max is NaN", nan_rows_give_nan) \
        .launch(launch)


@kc.kernel("py/rule/broken")
def broken():
    return kc.rows.max("f32", "f32").served(rows=[1, 3], cols=[16]) \
        .rule("every max is finite", lambda c: "" if np.isfinite(c["y"]).all() else "a max is not finite") \
        .launch(launch)
