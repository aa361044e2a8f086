// GeGLU rows on Intel XPU (OpenCL C), MLX's op-by-op bf16 steps, every op rounded to bf16:
//   y = bf16(bf16(gelu(g)) * u), gelu(g) = bf16(bf16(0.5 g) * bf16(1 + bf16(erf(bf16(g / sqrt 2)))))
// Elementwise: one work-item an element, work-groups of 256.
#include "kc_rows_cl.h"

inline float kc_rb(float f) { return kc_bf16_to_f32(kc_f32_to_bf16(f)); }

KC_ROW_KERNEL void kc_cl_geglu(global const ushort* g, global const ushort* u, global ushort* y, int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const float gv = kc_bf16_to_f32(g[i]);
  const float e = kc_rb(erf(kc_rb(gv * 0.70710678118654752440f)));
  const float gelu = kc_rb(kc_rb(0.5f * gv) * kc_rb(1.0f + e));
  y[i] = kc_f32_to_bf16(gelu * kc_bf16_to_f32(u[i]));
}
