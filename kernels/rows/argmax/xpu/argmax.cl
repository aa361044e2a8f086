// Row argmax on Intel XPU (OpenCL C): id[r] = the lowest c with x[r,c] == the row's max; -1 for a row
// holding a NaN (the stated rule). bf16 in. One work-group of 256 a row; each work-item keeps its
// best (value, lowest column), then a fixed tree over (value, column) pairs.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_row_argmax(global const ushort* x, global int* id, int cols) {
  local float val[KC_WG];
  local int col[KC_WG];
  local int nan_seen;
  const int t = get_local_id(0);
  if (t == 0) nan_seen = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  float best = -INFINITY;
  int at = cols;  // no column yet
  for (int c = t; c < cols; c += KC_WG) {
    const float v = kc_bf16_to_f32(xr[c]);
    if (v != v) atomic_or(&nan_seen, 1);
    else if (v > best || (v == best && c < at)) best = v, at = c;
  }
  val[t] = best;
  col[t] = at;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_WG / 2; o > 0; o >>= 1) {
    if (t < o && (val[t + o] > val[t] || (val[t + o] == val[t] && col[t + o] < col[t]))) val[t] = val[t + o], col[t] = col[t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) id[get_group_id(0)] = nan_seen ? -1 : (col[0] < cols ? col[0] : 0);
}
