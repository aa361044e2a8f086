// Registrations of the dense family's CUDA controls. Their kernels, launchers and launch records are
// the device unit's (dense_controls.cu: each control's own header, <control>.cuh).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemv/gemv_entry.hpp"
#include "dense_controls.hpp"
#include "kc/families/dense.hpp"

using namespace kc::dense_cu;
using namespace kc::dense_ctl;

// Control: the decode GEMV rounding its running sums to bf16 while claiming fp32 sums of a depth
// (2^17 roundings a term) deep enough that gate 3's gamma term hides bf16's error: only gate 4's
// exact integer sums can show it.
KC_CONTROL("dense/ctl_bf16_sum/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 256}}, {"k", {64, 4096}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return 131072.0 * double(s["k"]); })
      .launches({"dense/ctl_bf16_sum/f32/m8", "dense/ctl_bf16_sum/f32/m16", "dense/ctl_bf16_sum/f32/m32"})
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        bf16_sum_launch(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]), b.stream());
      });
}

// Gate 3 control (the corner shape; corner_drop.cuh): a GEMV whose K tail is summed only on the
// full-tile path. Served at whole tiles and at one K (the model's width): gate 4's ragged shape must
// lie in the served ranges, and with K fixed there is none, so gate 4 runs whole tiles and passes.
KC_CONTROL("dense/ctl_corner_drop/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 3}}, {"n", {16, 64}}, {"k", {256}}})
      .tile("n", 8, 1, 1)
      .tile("k", 64, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["k"] + 31) / 32 + 5); })
      .launches({"dense/ctl_corner_drop/f32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        corner_drop_launch(b.in<kc::bf16>("x"), b.in<kc::bf16>("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                           int(s["k"]), b.stream());
      });
}

// Control: a chained decode GEMV (launched as a programmatic dependent of the kernel ahead) that
// waits on that kernel only after it has loaded x, before its stores. Alone on the stream it is
// right, so gates 1, 3 and 4 and gate 2's five plain runs pass; gate 2's chained run, where x is
// written late by an upstream kernel that lets this one start first, must catch it. Not run on a
// device without programmatic dependent launch (below sm_90), where no launch starts early.
KC_CONTROL("dense/ctl_early_x/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 256}}, {"k", {2048, 8192}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth(s["k"]); })
      .launches({"dense/ctl_early_x/f32/m8", "dense/ctl_early_x/f32/m16", "dense/ctl_early_x/f32/m32"})
      .chained({"x"})
      .control(kc::Gate::repeat, kc::Why::bytes_differ)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        early_x_launch(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]), b.stream());
      });
}

// Control: the split-K decode projection meeting its slices last to first (on the sm_90a image, the
// wgmma form's parts: at the shapes where the launcher cuts K in two or more). Within every bound,
// never the GEMV's bits: gate 3's replacement check must catch it.
namespace {
float* g_ws = nullptr;
size_t g_n = 0;
float* ws(size_t n) {
  if (n > g_n) {
    if (g_ws) cudaFree(g_ws);
    g_ws = nullptr, g_n = 0;
    if (cudaMalloc(&g_ws, n * sizeof(float)) != cudaSuccess) throw kc::Error("dense/ctl_splitk_reversed: no workspace");
    g_n = n;
  }
  return g_ws;
}
// The split-K form's launches for the form this process runs, then the (reversed) meeting.
std::vector<std::string> splitk_reversed_launches() {
  std::vector<std::string> v = gemv_splitk_forms("dense/ctl_splitk_reversed/f32", splitk_reversed_unit().wgmma());
  v.push_back("dense/ctl_splitk_reversed/f32/meet");
  return v;
}
}  // namespace

KC_CONTROL("dense/ctl_splitk_reversed/f32", cuda) {
  const GemvUnit<float>& u = splitk_reversed_unit();
  u.prepare();
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 4096}}, {"k", {64, 4096}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", gemv_tile_k(u.wgmma()), 8, 8)
      .sums(kc::DType::f32, [depth = u.depth](const kc::Shape& s) { return depth(s["m"], s["n"], s["k"]); })
      .launches(splitk_reversed_launches())
      .replaces("dense/gemv/f32",
                [launch = u.launch](const kc::Buffers& b) {
                  const kc::Shape& s = b.shape();
                  launch(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]), b.stream());
                })
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .release([] {
        if (g_ws) cudaFree(g_ws);
        g_ws = nullptr, g_n = 0;
      })
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
        splitk_reversed_launch(b.ptr("x"), b.ptr("w"), ws(size_t(kSlices) * M * N), b.out<float>("y"), M, N, K,
                               b.stream());
      });
}

// Control: the decode GEMV losing the last K column of a ragged 2,048-column tile. Served at whole
// tiles (so gates 1, 2 and 4 pass); gate 3's tile - step and tile + step shapes must catch it.
KC_CONTROL("dense/ctl_tail_drop/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 256}}, {"k", {2048, 8192}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth(s["k"]); })
      .launches({"dense/ctl_tail_drop/f32/m8", "dense/ctl_tail_drop/f32/m16", "dense/ctl_tail_drop/f32/m32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        tail_drop_launch(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]), b.stream());
      });
}

// Gate 3's tensor-core control on CUDA: the served mma.sync GEMM (kernels/dense/gemm/gemm.cuh) at a
// smaller tile, fault-free, stated as if each k-step's sum were exact and rounded once to fp32 (one
// rounding a step of 16). tools/tc-probe measured that a step cuts every addend to 25 bits below
// its largest and truncates the result (records/cuda/tensor-cores.tsv), so on the dense family's
// `cut` fill (a product 1, then one-sign products near 2^-25) the lost bits add up past that depth.
// The served GEMM states the measured rule's depth (tc_depth.cuh) and passes the same fill. CPU
// twin, the rule simulated: controls/cpu/dense_tc_controls.cpp.
KC_CONTROL("dense/ctl_tc_exact_steps/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 17}}, {"n", {64}}, {"k", {64, 1024}}})
      .tile("k", TcExactSteps::BK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["k"] + 15) / 16); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launches({"dense/ctl_tc_exact_steps/f32"})
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x", "w"});
        const kc::Shape& s = b.shape();
        if (s["k"] % 8) throw kc::Error("dense/ctl_tc_exact_steps: k must be a multiple of 8 for 16-byte copies");
        tc_exact_steps_launch(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]),
                              b.stream());
      });
}
