// Row sum on Intel XPU (OpenCL C): y[r] = sum_c x[r,c], bf16 in, fp32 sum and out. One work-group of
// 256 a row; each work-item adds its columns (stride 256) in a chain, then the fixed tree.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_sum(global const ushort* x, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  float s = 0.f;
  for (int c = get_local_id(0); c < cols; c += KC_WG) s += kc_bf16_to_f32(xr[c]);
  s = kc_wg_sum(s, red);
  if (get_local_id(0) == 0) y[get_group_id(0)] = s;
}
