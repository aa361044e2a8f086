// Row dot (OpenCL C): y[r] = sum_c x[r,c] w[c], bf16 x and w, fp32 fma chains and out. One
// work-group of 256 a row; each work-item takes 16-byte vectors of x and w (stride 256 vectors) in one
// fma chain, the row's last cols % 8 columns one a work-item, then the fixed tree.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_dot(global const ushort* x, global const ushort* w, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0), nvec = cols / 8;
  float s = 0.f;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 a = kc_load8(xr, v), b = kc_load8(w, v);
    s = fma(a.s0, b.s0, s), s = fma(a.s1, b.s1, s), s = fma(a.s2, b.s2, s), s = fma(a.s3, b.s3, s);
    s = fma(a.s4, b.s4, s), s = fma(a.s5, b.s5, s), s = fma(a.s6, b.s6, s), s = fma(a.s7, b.s7, s);
  }
  if (t < cols - nvec * 8) s = fma(kc_bf16_to_f32(xr[nvec * 8 + t]), kc_bf16_to_f32(w[nvec * 8 + t]), s);
  s = kc_wg_sum(s, red);
  if (t == 0) y[get_group_id(0)] = s;
}
