// Registrations of the affine family's CUDA controls: the affine decode at 4 bits in groups of 64
// with one planted fault each. Gate 4's integer fill (one scale a row, codes palindromic in runs of
// 8, biases exact over the scale) and gate 1's positive fill leave each green there; gate 3's random
// groups must catch it. Their kernels, launchers and launch records are the device unit's
// (affine_controls.cu: each control's own header, <control>.cuh).
#include "../../../kernels/affine/qmv/qmv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "affine_controls.hpp"
#include "kc/families/affine.hpp"

using namespace kc::affine_cu;

namespace {
using Launch = void (*)(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                        void* stream);

// A control's entry under its name (its launches: name/m8, /m16, /m32).
kc::Entry affine_control(const std::string& name, Launch launch) {
  return kc::affine::projection(4, 64, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {256, 2048}}})
      .tile("m", 8, 1, 1)
      .tile("n", kRowsPerBlock, 1, 1)
      .tile("k", kLaneStrideK, 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return qmv_depth(s["k"], 64); })
      .launches({name + "/m8", name + "/m16", name + "/m32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([launch](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        launch(b.ptr("x"), b.ptr("q"), b.ptr("s"), b.ptr("b"), b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]),
               b.stream());
      });
}
}  // namespace

// Every group takes its row's first scale.
KC_CONTROL("affine/ctl_first_scale/b4_g64", cuda) {
  return affine_control("affine/ctl_first_scale/b4_g64", kc::affine_ctl::first_scale_launch);
}
// The bias folded through the scale, y += s * (sum x q + bf16(b / s) * sum x): off by b's rounding in
// every group.
KC_CONTROL("affine/ctl_fold_scale/b4_g64", cuda) {
  return affine_control("affine/ctl_fold_scale/b4_g64", kc::affine_ctl::fold_scale_launch);
}
// A word's eight nibbles read last to first.
KC_CONTROL("affine/ctl_reversed_nibbles/b4_g64", cuda) {
  return affine_control("affine/ctl_reversed_nibbles/b4_g64", kc::affine_ctl::reversed_nibbles_launch);
}
