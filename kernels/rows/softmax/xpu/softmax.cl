// Softmax rows (OpenCL C): y = exp(x - max) / sum exp(x - max), bf16 in and out, fp32 sums. Three
// passes over the row in 16-byte vectors (max, sum, write; the ragged columns one a work-item), each
// reduction in the fixed tree. A NaN in the row gives a NaN max and so a NaN row, as float64 does.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_softmax(global const ushort* x, global ushort* y, int cols) {
  local float red[KC_WG];
  const size_t base = (size_t)get_group_id(0) * cols;
  global const ushort* xr = x + base;
  global ushort* yr = y + base;
  const int t = get_local_id(0), nvec = cols / 8, tail = nvec * 8 + t;
  float m = -INFINITY;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 f = kc_load8(xr, v);
    m = kc_nan_max(m, kc_nan_max(kc_nan_max(kc_nan_max(f.s0, f.s1), kc_nan_max(f.s2, f.s3)),
                                 kc_nan_max(kc_nan_max(f.s4, f.s5), kc_nan_max(f.s6, f.s7))));
  }
  if (tail < cols) m = kc_nan_max(m, kc_bf16_to_f32(xr[tail]));
  m = kc_wg_max(m, red);
  float s = 0.f;
  for (int v = t; v < nvec; v += KC_WG) s = kc_chain8(s, exp(kc_load8(xr, v) - m));
  if (tail < cols) s += exp(kc_bf16_to_f32(xr[tail]) - m);
  s = kc_wg_sum(s, red);
  const float inv = 1.0f / s;
  for (int v = t; v < nvec; v += KC_WG) kc_store8(exp(kc_load8(xr, v) - m) * inv, yr, v);
  if (tail < cols) yr[tail] = kc_f32_to_bf16(exp(kc_bf16_to_f32(xr[tail]) - m) * inv);
}
