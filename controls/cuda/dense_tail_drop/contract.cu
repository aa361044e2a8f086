// Control: the decode GEMV losing the last K column of a ragged 2,048-column tile. Served at whole
// tiles (so gates 1, 2 and 4 pass); gate 3's tile - step and tile + step shapes must catch it.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/families/dense.hpp"

using namespace kc::dense_cu;

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
        launch_gemv<float, Fault::drop_tail>(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                                             int(s["k"]), kc::cu::stream_of(b));
      });
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m8", (kc_gemv_bf16<1, 1, float, Fault(1)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m16", (kc_gemv_bf16<2, 1, float, Fault(1)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m32", (kc_gemv_bf16<4, 1, float, Fault(1)>), 256, 0);
