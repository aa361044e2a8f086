"""The input families (kc/families/*.hpp), each a function returning an ``Entry`` whose rig already
builds every gate's inputs, the float64 reference and gate 4's replays. Buffers and dims are the
C++ family's (rows: x, w, y over rows x cols; attention: q, k, v, ...): the header says each."""
from __future__ import annotations

from types import SimpleNamespace

from . import _lib
from .entry import Entry


def _ns(**fns):
    return SimpleNamespace(**fns)


def _attention(name):
    def make(cache=None, out=None, steps=None, page=None, dot_depth=None, **more):
        args = dict(more)
        for k, v in (("cache", cache), ("out", out), ("steps", steps), ("page", page)):
            if v is not None:
                args[k] = v
        return Entry(f"attention.{name}", args, dot_depth=dot_depth)
    make.__name__ = name
    return make


rows = _ns(
    sum=lambda inp, out: Entry("rows.sum", {"in": inp, "out": out}),
    dot=lambda inp, out: Entry("rows.dot", {"in": inp, "out": out}),
    max=lambda inp, out: Entry("rows.max", {"in": inp, "out": out}),
    softmax=lambda inp, out: Entry("rows.softmax", {"in": inp, "out": out}),
    rms_norm=lambda inp, out, eps=1e-6: Entry("rows.rms_norm", {"in": inp, "out": out, "eps": eps}),
    layer_norm=lambda inp, out, eps=1e-5: Entry("rows.layer_norm", {"in": inp, "out": out, "eps": eps}),
    argmax=lambda inp: Entry("rows.argmax", {"in": inp}),
    topk=lambda inp, k: Entry("rows.topk", {"in": inp, "k": k}),
    geglu=lambda: Entry("rows.geglu", {}),
    swiglu=lambda: Entry("rows.swiglu", {}),
    add_rms_norm=lambda form, eps=1e-6: Entry("rows.add_rms_norm", {"form": form, "eps": eps}),
)

dense = _ns(
    projection=lambda out: Entry("dense.projection", {"out": out}),
    slice_depth=lambda k, slices, meet: _lib.call("dense.slice_depth", k=k, slices=slices, meet=meet),
)

affine = _ns(
    projection=lambda bits, group, out: Entry("affine.projection", {"bits": bits, "group": group, "out": out}),
    words_per_row=lambda k, bits: _lib.call("affine.words_per_row", k=k, bits=bits),
)

attention = _ns(
    decode=_attention("decode"),
    prompt=_attention("prompt"),
    split=_attention("split"),
    merge=_attention("merge"),
    append=lambda page=16: Entry("attention.append", {"page": page}),
    # Every size a kernel needs at a shape (a dict: seqs, rows, kv_heads, group, q_heads, d, keys,
    # window, slots, pages, max_pages, chunk, chunks, scale).
    geometry=lambda cache, shape, page=16, chunk=0: _lib.call(
        "attention.geometry", cache=cache, shape=[[k, int(v)] for k, v in shape.items()], page=page, chunk=chunk),
    scale=lambda shape: _lib.call("attention.scale", shape=[[k, int(v)] for k, v in shape.items()]),
)

blockscaled = _ns(
    projection=lambda weights, acts, out, interval=0: Entry(
        "blockscaled.projection", {"weights": weights, "acts": acts, "out": out, "interval": interval}),
)
