// rows/layer_norm/{f32,bf16} on the CPU (cpu_layer_norm.hpp): two passes in fp32, mean and rstd
// written beside y.
#include "cpu_layer_norm.hpp"
#include "kc/registry.hpp"

using namespace kc::rows_cpu;

KC_KERNEL("rows/layer_norm/f32", cpu) {
  return layer_norm_envelope(kc::rows::layer_norm(kc::DType::f32, kc::DType::f32, kLayerNormEps))
      .launch(layer_norm<float, float>);
}

KC_KERNEL("rows/layer_norm/bf16", cpu) {
  return layer_norm_envelope(kc::rows::layer_norm(kc::DType::bf16, kc::DType::bf16, kLayerNormEps))
      .launch(layer_norm<kc::bf16, kc::bf16>);
}
