// Control (4 bits, groups of 64): Every group takes its row's first scale.
// Gate 4's integer fill (one scale a row, codes palindromic in runs of 8, biases exact over the
// scale) and gate 1's positive fill leave it green there; gate 3's random groups must catch it.
#include "../../../kernels/affine/qmv/qmv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/affine.hpp"

using namespace kc::affine_cu;

KC_CONTROL("affine/ctl_first_scale/b4_g64", cuda) {
  return kc::affine::projection(4, 64, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {256, 2048}}})
      .tile("m", 8, 1, 1)
      .tile("n", kRowsPerBlock, 1, 1)
      .tile("k", kLaneStrideK, 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return qmv_depth(s["k"], 64); })
      .launches({"affine/ctl_first_scale/b4_g64/m8", "affine/ctl_first_scale/b4_g64/m16", "affine/ctl_first_scale/b4_g64/m32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        launch_qmv<4, 64, float, Fault::first_scale>(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), b.out<float>("y"),
                                                  int(s["m"]), int(s["n"]), int(s["k"]), kc::cu::stream_of(b));
      });
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("affine/ctl_first_scale/b4_g64/m8", (kc_affine_qmv<4, 64, 1, float, Fault(3)>), 256, 0);
KC_CUDA_LAUNCH("affine/ctl_first_scale/b4_g64/m16", (kc_affine_qmv<4, 64, 2, float, Fault(3)>), 256, 0);
KC_CUDA_LAUNCH("affine/ctl_first_scale/b4_g64/m32", (kc_affine_qmv<4, 64, 4, float, Fault(3)>), 256, 0);
