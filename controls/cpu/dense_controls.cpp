// Planted controls for the dense family on the CPU; each must go red on its gate for its reason.
#include "../../kernels/dense/cpu/dense_cpu.hpp"
#include "kc/families/dense.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using kc::dense_cpu::Fault;

Entry cpu_projection() {
  return dense::projection(DType::f32)
      .served({{"m", {1, 3, 8}}, {"n", {16, 100}}, {"k", {64, 200, 1024}}})
      .tile("k", dense_cpu::kTileK, 1, 1)
      .sums(DType::f32, dense_cpu::depth);
}
}  // namespace

// Loses the last K column of a ragged tile: right at whole tiles, wrong at the edges.
KC_CONTROL("dense/ctl_tail_drop/f32", cpu) {
  return cpu_projection()
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b, Fault::drop_tail); });
}

// A split-K form meeting its slices last to first: close to the GEMV, never its bits.
KC_CONTROL("dense/ctl_splitk_reversed/f32", cpu) {
  return cpu_projection()
      .replaces("dense/gemv/f32", [](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b); })
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .launch([](const kc::Buffers& b) { kc::dense_cpu::gemv_splitk<float>(b, Fault::reversed_meet); });
}

// Sums in bf16 while claiming fp32 sums of a depth deep enough (2^17 roundings a term) that gate 3's
// gamma term hides bf16's error: only gate 4's exact integer sums can show it.
KC_CONTROL("dense/ctl_bf16_sum/f32", cpu) {
  return cpu_projection()
      .sums(kc::DType::f32, [](const kc::Shape& s) { return 131072.0 * double(s["k"]); })
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b, Fault::bf16_sums); });
}

// Skips the terms whose activation is 0, as a sparse-activation shortcut does: 0 * Inf (NaN in
// float64) becomes a finite sum where a 0 in x faces +Inf in w.
KC_CONTROL("dense/ctl_skip_zero_acts/f32", cpu) {
  return cpu_projection()
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b, Fault::skip_zero_acts); });
}
