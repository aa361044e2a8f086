// Gate 2 control: a row sum that writes into its input. It adds the row by pairs (a + b first, so
// the pair's order does not change the sum) and "tidies" each pair into ascending order in x as it
// goes. Its output is right and the same every run (the sort is idempotent), but x's bytes change
// wherever a pair was out of order: with 32 pairs and more a row, always.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_ctl_in_place_sum(global ushort* x, global float* y, int cols) {
  local float red[KC_WG];
  global ushort* xr = x + (size_t)get_group_id(0) * cols;
  float s = 0.f;
  for (int p = get_local_id(0); 2 * p + 1 < cols; p += KC_WG) {
    const ushort ba = xr[2 * p], bb = xr[2 * p + 1];
    const float a = kc_bf16_to_f32(ba), b = kc_bf16_to_f32(bb);
    s += a + b;
    if (b < a) xr[2 * p] = bb, xr[2 * p + 1] = ba;
  }
  s = kc_wg_sum(s, red);
  if (get_local_id(0) == 0) y[get_group_id(0)] = s;
}
