// Gate 3 control: a row sum in tiles of 256 columns (one a work-item) whose partial last tile loses
// its last input. At whole tiles (every served width) it is right; at the edges gate 3 visits
// (least, tile - step, tile + step) the dropped term shows as a bound failure.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_ctl_tail_drop_sum(global const ushort* x, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int end = cols % KC_WG ? cols - 1 : cols;  // the planted fault
  float s = 0.f;
  for (int c = get_local_id(0); c < end; c += KC_WG) s += kc_bf16_to_f32(xr[c]);
  s = kc_wg_sum(s, red);
  if (get_local_id(0) == 0) y[get_group_id(0)] = s;
}
