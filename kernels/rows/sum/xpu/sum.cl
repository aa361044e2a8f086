// Row sum (OpenCL C): y[r] = sum_c x[r,c], bf16 in, fp32 sum and out. One work-group of 256 a row;
// each work-item adds its 16-byte vectors (eight bf16, stride 256 vectors) in one chain, then the
// row's last cols % 8 columns one a work-item, then the fixed tree.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_sum(global const ushort* x, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0), nvec = cols / 8;
  float s = 0.f;
  for (int v = t; v < nvec; v += KC_WG) s = kc_chain8(s, kc_load8(xr, v));
  if (t < cols - nvec * 8) s += kc_bf16_to_f32(xr[nvec * 8 + t]);
  s = kc_wg_sum(s, red);
  if (t == 0) y[get_group_id(0)] = s;
}
