"""CPU entries that note the GPU their process was given (tests/test_plugin.py: one a worker)."""
import os

import numpy as np

import kernel_contract as kc


def make(tag):
    def launch(b):
        with open(os.path.join(os.environ["KC_TEST_PINNED"], tag), "a") as f:
            f.write(f'{os.environ.get("PYTEST_XDIST_WORKER", "none")} {os.environ.get("CUDA_VISIBLE_DEVICES", "none")}\n')
        b["y"][:] = np.max(b["x"].reshape(-1, b.shape["cols"]), axis=1)
    return lambda: kc.rows.max("f32", "f32").served(rows=[1], cols=[8]).launch(launch)


for i in range(4):
    kc.kernel(f"py/pinned/e{i}")(make(f"e{i}"))
