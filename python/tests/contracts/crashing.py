"""Entries that crash, raise and hang between ones that pass: each is an ERROR naming it, and the
entry after it runs in a fresh process (tests/test_isolation.py reads the run)."""
import ctypes
import time

import numpy as np

import kernel_contract as kc

np.seterr(invalid="ignore", over="ignore")


def row_sum(b):
    x = b["x"].reshape(b.shape["rows"], b.shape["cols"])
    acc = np.zeros(b.shape["rows"], np.float32)
    for c in range(b.shape["cols"]):
        acc += x[:, c]
    b["y"][:] = acc


def entry(launch):
    return (kc.rows.sum("f32", "f32").served(rows=[1, 3], cols=[8, 16])
            .sums("f32", lambda s: s["cols"]).launch(launch))


@kc.kernel("py/iso/a_first")
def first():
    return entry(row_sum)


@kc.kernel("py/iso/b_segfault")
def segfault():
    return entry(lambda b: ctypes.memset(0, 0, 1))  # a write to address 0: SIGSEGV


@kc.kernel("py/iso/c_raises")
def raises():
    def launch(b):
        return b.shape["cols"] // 0
    return entry(launch)


@kc.kernel("py/iso/d_hangs")
def hangs():
    return entry(lambda b: time.sleep(3600))


@kc.kernel("py/iso/e_bad_spec")
def bad_spec():
    return kc.rows.sum("f32", "f32").served(rows=[1], colz=[8]).launch(row_sum)


@kc.kernel("py/iso/f_last")
def last():
    return entry(row_sum)
