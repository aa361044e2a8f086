// SwiGLU rows (OpenCL C), MLX's op-by-op bf16 order: y = bf16(silu(g) * u) with
// silu(g) = bf16(g * bf16(1 / bf16(1 + bf16(exp(-g))))). Elementwise over rows x cols flattened: a
// work-item takes one 16-byte vector (eight bf16) of g, u and y; the last n % 8 values go to the
// work-item after the last vector.
#include "kc_rows_cl.h"

inline float kc_rb(float f) { return kc_bf16_to_f32(kc_f32_to_bf16(f)); }
inline float kc_swiglu1(float gv, float uv) {
  const float sig = kc_rb(1.0f / kc_rb(1.0f + kc_rb(exp(-gv))));
  return kc_rb(gv * sig) * uv;
}

KC_ROW_KERNEL void kc_cl_swiglu(global const ushort* g, global const ushort* u, global ushort* y, int n) {
  const int i = get_global_id(0), nvec = n / 8;
  if (i < nvec) {
    const float8 a = kc_load8(g, i), b = kc_load8(u, i);
    kc_store8((float8)(kc_swiglu1(a.s0, b.s0), kc_swiglu1(a.s1, b.s1), kc_swiglu1(a.s2, b.s2), kc_swiglu1(a.s3, b.s3),
                       kc_swiglu1(a.s4, b.s4), kc_swiglu1(a.s5, b.s5), kc_swiglu1(a.s6, b.s6), kc_swiglu1(a.s7, b.s7)),
              y, i);
  } else if (i == nvec) {
    for (int j = nvec * 8; j < n; ++j) y[j] = kc_f32_to_bf16(kc_swiglu1(kc_bf16_to_f32(g[j]), kc_bf16_to_f32(u[j])));
  }
}
