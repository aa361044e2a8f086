// Control: a chained decode GEMV (launched as a programmatic dependent of the kernel ahead) that
// waits on that kernel only after it has loaded x, before its stores. Alone on the stream it is
// right, so gates 1, 3 and 4 and gate 2's five plain runs pass; gate 2's chained run, where x is
// written late by an upstream kernel that lets this one start first, must catch it. Not run on a
// device without programmatic dependent launch (below sm_90), where no launch starts early.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/families/dense.hpp"

using namespace kc::dense_cu;

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
        launch_gemv<float, Fault::early_x>(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                                           int(s["k"]), kc::cu::stream_of(b));
      });
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m8", (kc_gemv_bf16<1, 1, float, Fault(4)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m16", (kc_gemv_bf16<2, 1, float, Fault(4)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m32", (kc_gemv_bf16<4, 1, float, Fault(4)>), 256, 0);
