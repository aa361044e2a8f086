// Gate 3's planted control for layer norm on the CPU: the served kernel (cpu_layer_norm.hpp) with
// its variance from one pass, E[x^2] - mean^2 in fp32, clamped at 0 as real code does. On the offset
// fill (1000 + 0.01 u) the two terms are near 1e6 and differ by about 3e-5: fp32 keeps no digit of
// the difference, so rstd and y fall outside the two-pass interval. Elsewhere (spread, tiny and range
// rows, gate 4's zero-mean integers, gate 1's classes) it is within it: red on gate 3 alone.
#include "../../kernels/rows/layer_norm/cpu_layer_norm.hpp"
#include "kc/registry.hpp"

using namespace kc::rows_cpu;

KC_CONTROL("rows/layer_norm/one_pass_variance", cpu) {
  return layer_norm_envelope(kc::rows::layer_norm(kc::DType::f32, kc::DType::f32, kLayerNormEps))
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch(layer_norm<float, float, /*one_pass=*/true>);
}
