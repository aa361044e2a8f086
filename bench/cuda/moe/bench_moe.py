"""MoE routing, the combine and greedy on the H100, side by side in one run: this tree's kernels
(kernels/moe/route, kernels/moe/combine, kernels/sampling/pick, built here as a torch extension),
eager PyTorch (routing: softmax or sigmoid, topk, renormalise, the expert-major order by a stable
argsort), torch.compile of the same, and a copy of the bytes each reads and writes, the
memory-bound floor. Shapes of current models: DeepSeek-V3 (256 experts, top-8, sigmoid with a
bias, hidden 7168), Qwen3-MoE (128, top-8, hidden 4096), GPT-OSS (64 and 128, top-4), at decode
and prompt token counts; greedy over Llama-3's, Qwen3's and Gemma-3's vocabularies. Prints
markdown tables; timing as bench/cuda/torch_timing.py. From the repository root:

    python3 bench/cuda/moe/bench_moe.py > bench/cuda/moe/h100_moe.txt
"""
import os
import sys

import torch
from torch.utils.cpp_extension import load_inline

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "cuda"))
from torch_timing import time_us  # noqa: E402

CUDA_SRC = r"""
#include <torch/extension.h>
#include "kernels/moe/combine/combine.cuh"
#include "kernels/moe/route/route.cuh"
#include "kernels/sampling/pick/pick.cuh"
void route(torch::Tensor x, torch::Tensor bias, torch::Tensor ids, torch::Tensor w, torch::Tensor counts,
           torch::Tensor offsets, torch::Tensor perm, int64_t k, bool sigmoid, bool order) {
  const int tokens = x.size(0), experts = x.size(1);
  auto st = at::cuda::getCurrentCUDAStream().stream();
  const float* b = bias.numel() ? bias.data_ptr<float>() : nullptr;
  if (order)
    kc::cu::moe_route_launch<0>(x.data_ptr<float>(), b, ids.data_ptr<int>(), w.data_ptr<float>(), counts.data_ptr<int>(),
                                offsets.data_ptr<int>(), perm.data_ptr<int>(), tokens, experts, int(k), sigmoid, st);
  else
    kc_moe_route<0><<<(tokens + kc::cu::kRouteWarps - 1) / kc::cu::kRouteWarps, kc::cu::kRouteWarps * 32, 0, st>>>(
        x.data_ptr<float>(), b, ids.data_ptr<int>(), w.data_ptr<float>(), tokens, experts, int(k), sigmoid);
}
void combine(torch::Tensor e, torch::Tensor slot, torch::Tensor w, torch::Tensor shared, torch::Tensor y) {
  const int tokens = y.size(0), hidden = y.size(1), k = slot.size(1);
  const dim3 grid((hidden / 8 + kc::cu::kCombineThreads - 1) / kc::cu::kCombineThreads, tokens);
  kc_moe_combine_bf16<0><<<grid, kc::cu::kCombineThreads, 0, at::cuda::getCurrentCUDAStream().stream()>>>(
      reinterpret_cast<const kc_u4*>(e.data_ptr()), slot.data_ptr<int>(), w.data_ptr<float>(),
      reinterpret_cast<const kc_u4*>(shared.data_ptr()), reinterpret_cast<kc_u4*>(y.data_ptr()), hidden, k);
}
void greedy(torch::Tensor x, torch::Tensor id) {
  kc_sample_greedy<__nv_bfloat16><<<x.size(0), kc::cu::kPickThreads, 0, at::cuda::getCurrentCUDAStream().stream()>>>(
      reinterpret_cast<const __nv_bfloat16*>(x.data_ptr()), id.data_ptr<int>(), x.size(1));
}
"""
CPP_SRC = """void route(torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, int64_t, bool, bool);
void combine(torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor);
void greedy(torch::Tensor, torch::Tensor);"""


def torch_route(x, bias, k, sigmoid):
    s = torch.sigmoid(x) if sigmoid else torch.softmax(x, dim=-1)
    key = s + bias if bias is not None else s
    _, ids = torch.topk(key, k, dim=-1)
    w = s.gather(-1, ids)
    w = w / w.sum(-1, keepdim=True)
    flat = ids.flatten()
    perm = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=x.shape[1])
    offsets = torch.cumsum(counts, 0) - counts
    return ids, w, counts, offsets, perm


def main():
    ext = load_inline("kc_moe_bench", cpp_sources=CPP_SRC, cuda_sources="#include <ATen/cuda/CUDAContext.h>\n" + CUDA_SRC,
                      functions=["route", "combine", "greedy"], extra_include_paths=[ROOT], extra_cuda_cflags=["-O3", "-arch=sm_90a"])
    compiled = torch.compile(torch_route)
    shapes = [  # (name, tokens, experts, k, sigmoid+bias)
        ("Qwen3-MoE decode", 1, 128, 8, False), ("Qwen3-MoE decode", 64, 128, 8, False),
        ("Qwen3-MoE prompt", 4096, 128, 8, False), ("DeepSeek-V3 decode", 1, 256, 8, True),
        ("DeepSeek-V3 decode", 64, 256, 8, True), ("DeepSeek-V3 prompt", 4096, 256, 8, True),
        ("GPT-OSS decode", 32, 64, 4, False), ("GPT-OSS prompt", 4096, 128, 4, False),
    ]
    sets = 8
    print("| shape | tokens | experts | k | kc router us | kc top-k only us | eager us | torch.compile us | copy us | copy / kc |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, t, e, k, sig in shapes:
        xs = [torch.randn(t, e, device="cuda") for _ in range(sets)]
        bias = torch.rand(e, device="cuda") * 0.1 if sig else None
        bt = bias if sig else torch.empty(0, device="cuda")
        ids = torch.empty(t, k, dtype=torch.int32, device="cuda")
        w = torch.empty(t, k, device="cuda")
        counts = torch.empty(e, dtype=torch.int32, device="cuda")
        offsets = torch.empty(e, dtype=torch.int32, device="cuda")
        perm = torch.empty(t * k, dtype=torch.int32, device="cuda")
        # Check the kc router against eager on one set first. Softmax forms rank the logits: ids, counts and
        # perm must agree. With a bias both rank fp32 keys through their own expf: a token may differ at a
        # near-tie, so those are counted, not asserted.
        ext.route(xs[0], bt, ids, w, counts, offsets, perm, k, sig, True)
        ri, rw, rc, ro, rp = torch_route(xs[0], bias, k, sig)
        same = (ids.long() == ri).all(-1)
        if not sig:
            assert same.all() and torch.equal(perm.long(), rp) and torch.equal(counts.long(), rc), name
        assert torch.allclose(w[same], rw[same], rtol=1e-5, atol=1e-6), name
        if not same.all():
            print(f"<!-- {name} {t}x{e}: {int((~same).sum())} token(s) ranked apart at near-ties of fp32 keys -->")
        kc = time_us(lambda i: ext.route(xs[i], bt, ids, w, counts, offsets, perm, k, sig, True), sets, 50)
        kc_top = time_us(lambda i: ext.route(xs[i], bt, ids, w, counts, offsets, perm, k, sig, False), sets, 50)
        eager = time_us(lambda i: torch_route(xs[i], bias, k, sig), sets, 50)
        comp = time_us(lambda i: compiled(xs[i], bias, k, sig), sets, 50)
        nbytes = t * e * 4 + t * k * 12
        src = [torch.empty(nbytes, dtype=torch.uint8, device="cuda") for _ in range(sets)]
        dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        copy = time_us(lambda i: dst.copy_(src[i]), sets, 50)
        print(f"| {name} | {t} | {e} | {k} | {kc:.2f} | {kc_top:.2f} | {eager:.2f} | {comp:.2f} | {copy:.2f} | {copy / kc:.0%} |")

    # The combine (bf16 rows of 8 experts from their slots, a shared row, bf16 out) and greedy over bf16
    # logits: eager, torch.compile, the copy of the bytes each must read and write.
    def torch_combine(e, slot, w, shared):
        return ((w.unsqueeze(-1) * e[slot.long()].float()).sum(1) + shared.float()).to(torch.bfloat16)
    ccomb = torch.compile(torch_combine)
    print()
    print("| combine | tokens | hidden | kc us | eager us | torch.compile us | copy us | copy / kc |")
    print("|---|---|---|---|---|---|---|---|")
    for name, t, hdim in [("DeepSeek-V3 decode", 1, 7168), ("DeepSeek-V3 decode", 64, 7168),
                          ("Qwen3-MoE decode", 32, 4096), ("DeepSeek-V3 prompt", 4096, 7168)]:
        k = 8
        es = [torch.randn(t * k, hdim, device="cuda").to(torch.bfloat16) for _ in range(sets)]
        slot = torch.randperm(t * k, device="cuda").to(torch.int32).view(t, k)
        w = torch.rand(t, k, device="cuda")
        shared = torch.randn(t, hdim, device="cuda").to(torch.bfloat16)
        y = torch.empty(t, hdim, device="cuda", dtype=torch.bfloat16)
        ext.combine(es[0], slot, w, shared, y)
        assert torch.allclose(y.float(), torch_combine(es[0], slot, w, shared).float(), rtol=1e-2, atol=1e-2), name
        kc = time_us(lambda i: ext.combine(es[i], slot, w, shared, y), sets, 50)
        eager = time_us(lambda i: torch_combine(es[i], slot, w, shared), sets, 50)
        comp = time_us(lambda i: ccomb(es[i], slot, w, shared), sets, 50)
        nbytes = (t * k + 2 * t) * hdim * 2
        src = [torch.empty(nbytes, dtype=torch.uint8, device="cuda") for _ in range(sets)]
        dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        copy = time_us(lambda i: dst.copy_(src[i]), sets, 50)
        print(f"| {name} | {t} | {hdim} | {kc:.2f} | {eager:.2f} | {comp:.2f} | {copy:.2f} | {copy / kc:.0%} |")
    cargmax = torch.compile(lambda x: torch.argmax(x, -1))
    print()
    print("| greedy (bf16 logits) | rows | vocab | kc us | eager argmax us | torch.compile us | copy us | copy / kc |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r, v in [("Llama-3 decode", 1, 128256), ("Qwen3 decode", 32, 151936), ("Gemma-3 decode", 64, 262144)]:
        xs = [torch.randn(r, v, device="cuda").to(torch.bfloat16) for _ in range(sets)]
        idv = torch.empty(r, dtype=torch.int32, device="cuda")
        ext.greedy(xs[0], idv)
        assert torch.equal(idv.long(), torch.argmax(xs[0], -1)), name
        kc = time_us(lambda i: ext.greedy(xs[i], idv), sets, 50)
        eager = time_us(lambda i: torch.argmax(xs[i], -1), sets, 50)
        comp = time_us(lambda i: cargmax(xs[i]), sets, 50)
        src = [torch.empty(r * v * 2, dtype=torch.uint8, device="cuda") for _ in range(sets)]
        dst = torch.empty(r * v * 2, dtype=torch.uint8, device="cuda")
        copy = time_us(lambda i: dst.copy_(src[i]), sets, 50)
        print(f"| {name} | {r} | {v} | {kc:.2f} | {eager:.2f} | {comp:.2f} | {copy:.2f} | {copy / kc:.0%} |")


if __name__ == "__main__":
    main()
