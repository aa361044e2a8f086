// Gate 1 control: a row max by fmax, which drops a NaN (fmax(NaN, x) = x). A row holding a NaN comes
// out finite where float64's max is NaN: a class mismatch. Otherwise the served max's shape: 16-byte
// loads, then the tree (by fmax too).
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_ctl_fmax_max(global const ushort* x, global ushort* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0), nvec = cols / 8;
  float m = -INFINITY;
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 f = kc_load8(xr, v);
    m = fmax(m, fmax(fmax(fmax(f.s0, f.s1), fmax(f.s2, f.s3)), fmax(fmax(f.s4, f.s5), fmax(f.s6, f.s7))));
  }
  if (t < cols - nvec * 8) m = fmax(m, kc_bf16_to_f32(xr[nvec * 8 + t]));
  red[t] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_WG / 2; o > 0; o >>= 1) {
    if (t < o) red[t] = fmax(red[t], red[t + o]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) y[get_group_id(0)] = kc_f32_to_bf16(red[0]);
}
