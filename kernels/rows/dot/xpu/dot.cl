// Row dot on Intel XPU (OpenCL C): y[r] = sum_c x[r,c] * w[c], bf16 in, fp32 sums (fma) and out.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_dot(global const ushort* x, global const ushort* w, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  float s = 0.f;
  for (int c = get_local_id(0); c < cols; c += KC_WG) s = fma(kc_bf16_to_f32(xr[c]), kc_bf16_to_f32(w[c]), s);
  s = kc_wg_sum(s, red);
  if (get_local_id(0) == 0) y[get_group_id(0)] = s;
}
