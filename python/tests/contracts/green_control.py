"""A control whose kernel is not broken: it stays GREEN, and the run fails."""
import numpy as np

import kernel_contract as kc


@kc.control("py/green/max_is_right")
def max_is_right():
    return (kc.rows.max("f32", "f32").served(rows=[1, 3], cols=[16])
            .control(1, "class_mismatch")
            .launch(lambda b: np.max(b["x"].reshape(-1, b.shape["cols"]), axis=1, out=b["y"])))
