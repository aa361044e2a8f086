// Gate 3's tensor-core control on CUDA: the served mma.sync GEMM (kernels/dense/gemm/gemm.cuh) at a
// smaller tile, fault-free, stated as if each k-step's sum were exact and rounded once to fp32 (one
// rounding a step of 16). tools/tc-probe measured that a step cuts every addend to 25 bits below
// its largest and truncates the result (records/cuda/tensor-cores.tsv), so on the dense family's
// `cut` fill (a product 1, then one-sign products near 2^-25) the lost bits add up past that depth.
// The served GEMM states the measured rule's depth (tc_depth.cuh) and passes the same fill. CPU
// twin, the rule simulated: controls/cpu/dense_tc_controls.cpp.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemm/gemm.cuh"
#include "kc/families/dense.hpp"

namespace {
// 64 x 64 tiles of four 32 x 32 warps, two 16 KiB stages: its own symbol, no opt-in.
using Ctl = kc::gemm_cu::Cfg<64, 64, 32, 32, 32, 2>;
}  // namespace

KC_CONTROL("dense/ctl_tc_exact_steps/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 17}}, {"n", {64}}, {"k", {64, 1024}}})
      .tile("k", Ctl::BK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["k"] + 15) / 16); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launches({"dense/ctl_tc_exact_steps/f32"})
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x", "w"});
        const kc::Shape& s = b.shape();
        if (s["k"] % 8) throw kc::Error("dense/ctl_tc_exact_steps: k must be a multiple of 8 for 16-byte copies");
        kc::gemm_cu::launch_gemm_cfg<Ctl, float>(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                                                int(s["k"]), kc::cu::stream_of(b));
      });
}
KC_CUDA_LAUNCH("dense/ctl_tc_exact_steps/f32", (kc_gemm_mma<Ctl, float>), Ctl::kThreads, Ctl::kSmemBytes);
