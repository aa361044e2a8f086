// Residual add + RMS norm rows (OpenCL C): h = bf16(x + r); y = bf16(v / sqrt(mean(v^2) + eps) * w)
// with v = h (rounded, MLX's op-by-op order) or v = x + r in fp32 (once rounded). bf16 in and out.
// One work-group of 256 a row: the sum of squares over 16-byte vectors (one fma chain a work-item,
// the ragged columns one a work-item, the fixed tree), then a second pass in 16-byte loads and stores.
#include "kc_rows_cl.h"

inline float8 kc_round8(float8 f) {
  return (float8)(kc_bf16_to_f32(kc_f32_to_bf16(f.s0)), kc_bf16_to_f32(kc_f32_to_bf16(f.s1)),
                  kc_bf16_to_f32(kc_f32_to_bf16(f.s2)), kc_bf16_to_f32(kc_f32_to_bf16(f.s3)),
                  kc_bf16_to_f32(kc_f32_to_bf16(f.s4)), kc_bf16_to_f32(kc_f32_to_bf16(f.s5)),
                  kc_bf16_to_f32(kc_f32_to_bf16(f.s6)), kc_bf16_to_f32(kc_f32_to_bf16(f.s7)));
}

inline void kc_add_rms(global const ushort* x, global const ushort* r, global const ushort* w, global ushort* h,
                       global ushort* y, int cols, float eps, int once, local float* red) {
  const size_t base = (size_t)get_group_id(0) * cols;
  x += base, r += base, h += base, y += base;
  const int t = get_local_id(0), nvec = cols / 8, tail = nvec * 8 + t;
  float ss = 0.f;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 s = kc_load8(x, v) + kc_load8(r, v);
    kc_store8(s, h, v);
    const float8 q = once ? s : kc_round8(s);
    ss = fma(q.s0, q.s0, ss), ss = fma(q.s1, q.s1, ss), ss = fma(q.s2, q.s2, ss), ss = fma(q.s3, q.s3, ss);
    ss = fma(q.s4, q.s4, ss), ss = fma(q.s5, q.s5, ss), ss = fma(q.s6, q.s6, ss), ss = fma(q.s7, q.s7, ss);
  }
  if (tail < cols) {
    const float s = kc_bf16_to_f32(x[tail]) + kc_bf16_to_f32(r[tail]);
    const ushort hb = kc_f32_to_bf16(s);
    h[tail] = hb;
    const float q = once ? s : kc_bf16_to_f32(hb);
    ss = fma(q, q, ss);
  }
  ss = kc_wg_sum(ss, red);
  const float inv = rsqrt(ss / (float)cols + eps);
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 s = kc_load8(x, v) + kc_load8(r, v);
    kc_store8((once ? s : kc_round8(s)) * inv * kc_load8(w, v), y, v);
  }
  if (tail < cols) {
    const float s = kc_bf16_to_f32(x[tail]) + kc_bf16_to_f32(r[tail]);
    const float q = once ? s : kc_bf16_to_f32(kc_f32_to_bf16(s));
    y[tail] = kc_f32_to_bf16(q * inv * kc_bf16_to_f32(w[tail]));
  }
}

KC_ROW_KERNEL void kc_cl_add_rms_norm(global const ushort* x, global const ushort* r, global const ushort* w,
                                      global ushort* h, global ushort* y, int cols, float eps) {
  local float red[KC_WG];  // local memory is declared in a kernel, not a helper (OpenCL C)
  kc_add_rms(x, r, w, h, y, cols, eps, 0, red);
}
KC_ROW_KERNEL void kc_cl_add_rms_norm_once(global const ushort* x, global const ushort* r, global const ushort* w,
                                           global ushort* h, global ushort* y, int cols, float eps) {
  local float red[KC_WG];
  kc_add_rms(x, r, w, h, y, cols, eps, 1, red);
}
