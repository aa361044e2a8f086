// SwiGLU rows on Intel XPU (OpenCL C), MLX's op-by-op bf16 steps, every op rounded to bf16:
//   y = bf16(bf16(silu(g)) * u), silu(g) = bf16(g * bf16(sigmoid(g))), sigmoid(g) = bf16(1 / bf16(1 + bf16(exp(-g))))
// Elementwise: one work-item an element, work-groups of 256.
#include "kc_rows_cl.h"

inline float kc_rb(float f) { return kc_bf16_to_f32(kc_f32_to_bf16(f)); }

KC_ROW_KERNEL void kc_cl_swiglu(global const ushort* g, global const ushort* u, global ushort* y, int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const float gv = kc_bf16_to_f32(g[i]);
  const float sig = kc_rb(1.0f / kc_rb(1.0f + kc_rb(exp(-gv))));
  const float silu = kc_rb(gv * sig);
  y[i] = kc_f32_to_bf16(silu * kc_bf16_to_f32(u[i]));
}
