// Planted controls for the affine family on the CPU; each must go red on gate 3 for a bound, and
// pass every other gate (gate 4's integer fill uses one scale a row and codes palindromic in runs
// of 8, so only gate 3's random groups can tell these faults).
#include "../../kernels/affine/cpu/affine_cpu.hpp"
#include "kc/families/affine.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using kc::affine_cpu::Fault;

template <Fault F> Entry control_qmv() {
  return affine::projection(4, 64, DType::f32)
      .served({{"m", {1, 3}}, {"n", {16, 40}}, {"k", {128, 512}}})
      .range("k", 64, 64)
      .sums(DType::f32, [](const Shape& s) { return affine_cpu::depth(s, 64); })
      .control(Gate::shapes, Why::bound)
      .launch([](const Buffers& b) { affine_cpu::qmv<float>(b, 4, 64, F); });
}
}  // namespace

// The bias folded through the scale (bf16(b / s)): off by b's rounding in every group.
KC_CONTROL("affine/ctl_fold_scale/b4_g64", cpu) { return control_qmv<Fault::fold_scale>(); }
// A word's eight nibbles read last to first.
KC_CONTROL("affine/ctl_reversed_nibbles/b4_g64", cpu) { return control_qmv<Fault::reversed_code>(); }
// Every group takes its row's first scale.
KC_CONTROL("affine/ctl_first_scale/b4_g64", cpu) { return control_qmv<Fault::first_scale>(); }
