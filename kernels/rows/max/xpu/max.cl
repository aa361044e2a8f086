// Row max (OpenCL C): y[r] = max_c x[r,c], bf16 in and out; a NaN anywhere in the row makes a NaN
// (kc_nan_max keeps it, as float64's max does; fmax would drop it). One work-group of 256 a row,
// 16-byte loads of eight bf16, the row's last cols % 8 columns one a work-item, then the fixed tree.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_max(global const ushort* x, global ushort* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0), nvec = cols / 8;
  float m = -INFINITY;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 f = kc_load8(xr, v);
    m = kc_nan_max(m, kc_nan_max(kc_nan_max(kc_nan_max(f.s0, f.s1), kc_nan_max(f.s2, f.s3)),
                                 kc_nan_max(kc_nan_max(f.s4, f.s5), kc_nan_max(f.s6, f.s7))));
  }
  if (t < cols - nvec * 8) m = kc_nan_max(m, kc_bf16_to_f32(xr[nvec * 8 + t]));
  m = kc_wg_max(m, red);
  if (t == 0) y[get_group_id(0)] = kc_f32_to_bf16(m);
}
