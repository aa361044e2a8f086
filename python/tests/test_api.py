"""The package's API: families and builder methods reach the harness, whose refusals name what is
wrong; the helpers; the views over the harness's buffers; GPU pinning; Triton's stand-ins."""
import ctypes
import os

import numpy as np
import pytest

import kernel_contract as kc
from kernel_contract import _lib, gpu
from kernel_contract.views import CPU, DLPackBuffer, Slot

pytestmark = pytest.mark.unit


def test_builder_reaches_the_spec():
    e = (kc.rows.sum("f32", "f32").served(rows=[1, 7], cols=[64, 1000]).tile("cols", 4, 1, 1)
         .sums("f32", lambda s: s["cols"]).launches("mine/a", "mine/b").note("n"))
    d = e.describe()
    assert [(x["name"], x["served"]) for x in d["dims"]] == [("rows", [1, 7]), ("cols", [64, 1000])]
    cols = d["dims"][1]
    assert cols["tiled"] and (cols["tile"], cols["step"], cols["least"]) == (4, 1, 1)
    assert d["launches"] == ["mine/a", "mine/b"] and d["summed"] and d["note"] == "n"
    c = kc.rows.max("f32", "f32").control("nonfinite", "class_mismatch").describe()
    assert c["control_gate"] == 1 and c["control_why"] == "class_mismatch"


@pytest.mark.parametrize("make, words", [
    (lambda: kc.rows.sum("f32", "f33"), ["'f33' is not an element type", "bf16"]),
    (lambda: kc.rows.topk("f32", k="eight"), ["rows.topk", "'k'"]),
    (lambda: kc.Entry("rows.summ", {}), ["no family 'rows.summ'", "rows.sum"]),
    (lambda: kc.Entry("rows.sum", {"in": "f32", "out": "f32", "eps": 1}), ["no argument 'eps'", "it takes in, out"]),
    (lambda: kc.attention.decode(cache="tree", out="f32"), ["cache: 'tree' is not one of linear, ring, paged"]),
    (lambda: kc.attention.decode(cache="paged", out="f32", steps={"p": "fp8"}), ["steps: p: 'fp8'"]),
    (lambda: kc.blockscaled.projection("fp9", "bf16", "f32"), ["weights: 'fp9'"]),
    (lambda: kc.rows.sum("f32", "f32").control(7, "bound"), ["gate 7 is not a gate"]),
    (lambda: kc.rows.sum("f32", "f32").control(3, "wrong"), ["'wrong' is not a reason", "bytes_differ"]),
])
def test_refusals_name_the_thing(make, words):
    with pytest.raises(kc.HarnessError) as e:
        make()
    for w in words:
        assert w in str(e.value)


def test_python_side_refusals():
    with pytest.raises(ValueError, match="'f99' is not an element type"):
        kc.rows.sum("f32", "f32").sums("f99", 1)
    with pytest.raises(TypeError, match="want a number or a function"):
        kc.rows.sum("f32", "f32").sums("f32", "deep")
    with pytest.raises(ValueError, match="'four'"):
        kc.rows.sum("f32", "f32").tile("cols", "four")
    with pytest.raises(TypeError, match="a launcher must be callable"):
        kc.rows.sum("f32", "f32").launch(3)
    with pytest.raises(ValueError, match="a Python entry runs on cpu or cuda, not 'hip'"):
        kc.kernel("mine/x", backend="hip")(lambda: None)
    e = kc.rows.sum("f32", "f32")
    e._give("cpu")
    with pytest.raises(kc.HarnessError, match="handed to the harness already"):
        e.served(rows=[1])


def test_helpers():
    assert kc.dense.slice_depth(100, 4, 2) == 27
    assert kc.affine.words_per_row(64, 4) == 8
    with pytest.raises(kc.HarnessError):
        kc.affine.words_per_row(10, 3)
    shape = {"seqs": 3, "rows": 1, "kv_heads": 2, "group": 4, "d": 64, "keys": 40}
    g = kc.attention.geometry("paged", shape, page=16)
    assert (g["q_heads"], g["slots"], g["max_pages"]) == (8, 16, 3) and g["pages"] > g["max_pages"]
    assert g["scale"] == pytest.approx(0.125) == kc.attention.scale(shape)


def test_bf16_conversions_are_exact_and_round_to_even():
    bits = np.arange(1 << 16, dtype=np.uint16)
    f = kc.bf16_to_f32(bits)
    finite = ~np.isnan(f)
    assert np.array_equal(kc.f32_to_bf16(f)[finite], bits[finite])
    assert np.isnan(kc.bf16_to_f32(kc.f32_to_bf16(np.float32("nan"))))
    halfway = np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8], np.float32)  # ties: to the even neighbour
    assert list(kc.bf16_to_f32(kc.f32_to_bf16(halfway))) == [1.0, 1 + 2.0 ** -6]


def test_buffer_views_are_the_memory_itself():
    host = np.arange(6, dtype=np.float32)
    slot = Slot("x", "f32", 6, "out", host.ctypes.data)
    buf = DLPackBuffer(slot, CPU)
    view = np.asarray(buf)
    view[2] = 42  # writeable: an output is written through it
    assert host[2] == 42 and view.ctypes.data == host.ctypes.data
    imported = np.from_dlpack(buf)  # any DLPack consumer sees the same bytes, no copy
    assert imported.ctypes.data == host.ctypes.data and list(imported) == list(host)
    for _ in range(1000):  # capsules no consumer took free their tensors (no leak, no crash)
        buf.__dlpack__()
    with pytest.raises(BufferError, match="never a copy"):
        buf.__dlpack__(copy=True)


def test_hook_errors_carry_the_last_traceback_line():
    try:
        {}["missing"]
    except KeyError as e:
        text = _lib.describe(e)
    assert text.startswith("KeyError: 'missing' (raised at ") and "test_api.py:" in text


def test_backends():
    assert kc.backend_absent("cpu") == ""
    assert kc.backend_absent("nowhere") is None
    if not os.path.isdir("/proc/driver/nvidia/gpus"):
        assert kc.backend_absent("cuda")  # says why, by name


@pytest.mark.parametrize("worker, visible, count, want", [
    ("gw0", None, 2, "0"), ("gw1", None, 2, "1"), ("gw3", None, 2, "1"), ("gw1", "4,5,6", 0, "5"),
    (None, None, 8, None), ("master", None, 8, None), ("gw0", None, 0, None), ("gw2", "", 0, None),
])
def test_one_gpu_a_worker(worker, visible, count, want):
    assert gpu.pinned_devices(worker, visible, count) == want


def test_triton_stand_ins_or_triton():
    t = kc.triton
    if t.ABSENT:
        assert "Triton is not installed" in t.ABSENT
        k = t.jit(lambda x, BLOCK: None)
        assert repr(t.tl.constexpr) == "triton.language.constexpr"
        with pytest.raises(RuntimeError, match="cannot launch: Triton is not installed"):
            k[(1,)](1)
    else:
        import triton

        assert t.jit is triton.jit and t.tl is triton.language


def test_a_triton_launch_declared_after_gate_5_is_an_error(monkeypatch):
    # Gate 5 compiles the launches declared when the contract is imported; one declared later (inside
    # an entry's function) would escape it, and its launches would be unrecorded at run time.
    monkeypatch.setattr(kc.triton, "_compiled", True)
    with pytest.raises(RuntimeError, match="declared after gate 5"):
        kc.triton.launch("py/late", object(), {"x": "*fp32"}, [{"num_warps": 1}])
    assert not any(d.name == "py/late" for d in kc.triton.declared)
