// Row max on Intel XPU (OpenCL C): y[r] = max_c x[r,c], bf16 in and out; a NaN anywhere in the row
// gives NaN (kc_nan_max, never fmax, which drops it).
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_max(global const ushort* x, global ushort* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  float m = -INFINITY;
  for (int c = get_local_id(0); c < cols; c += KC_WG) m = kc_nan_max(m, kc_bf16_to_f32(xr[c]));
  m = kc_wg_max(m, red);
  if (get_local_id(0) == 0) y[get_group_id(0)] = kc_f32_to_bf16(m);
}
