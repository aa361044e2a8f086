// RMS norm rows (OpenCL C): y = x / sqrt(mean(x^2) + eps) * w, bf16 in, fp32 sums, bf16 out. One
// work-group of 256 a row: the sum of squares over 16-byte vectors (one fma chain a work-item, the
// ragged columns one a work-item, then the fixed tree), then a second pass in 16-byte loads and stores.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_rms_norm(global const ushort* x, global const ushort* w, global ushort* y, int cols, float eps) {
  local float red[KC_WG];
  const size_t base = (size_t)get_group_id(0) * cols;
  global const ushort* xr = x + base;
  global ushort* yr = y + base;
  const int t = get_local_id(0), nvec = cols / 8, tail = nvec * 8 + t;
  float ss = 0.f;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 f = kc_load8(xr, v);
    ss = fma(f.s0, f.s0, ss), ss = fma(f.s1, f.s1, ss), ss = fma(f.s2, f.s2, ss), ss = fma(f.s3, f.s3, ss);
    ss = fma(f.s4, f.s4, ss), ss = fma(f.s5, f.s5, ss), ss = fma(f.s6, f.s6, ss), ss = fma(f.s7, f.s7, ss);
  }
  if (tail < cols) ss = fma(kc_bf16_to_f32(xr[tail]), kc_bf16_to_f32(xr[tail]), ss);
  ss = kc_wg_sum(ss, red);
  const float inv = rsqrt(ss / (float)cols + eps);
  for (int v = t; v < nvec; v += KC_WG) kc_store8(kc_load8(xr, v) * inv * kc_load8(w, v), yr, v);
  if (tail < cols) yr[tail] = kc_f32_to_bf16(kc_bf16_to_f32(xr[tail]) * inv * kc_bf16_to_f32(w[tail]));
}
