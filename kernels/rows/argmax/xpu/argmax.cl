// Row argmax (OpenCL C): id[r] = the lowest c with x[r,c] == the row's max; -1 for a row holding a
// NaN (the stated rule). bf16 in. One work-group of 256 a row; each work-item keeps its best (value,
// lowest column) over its 16-byte vectors and one ragged column, then a fixed tree over the pairs.
#include "kc_rows_cl.h"

inline void kc_best(float v, int c, float* best, int* at, int* nan) {
  if (v != v) *nan = 1;
  else if (v > *best || (v == *best && c < *at)) *best = v, *at = c;
}

KC_ROW_KERNEL void kc_cl_row_argmax(global const ushort* x, global int* id, int cols) {
  local float val[KC_WG];
  local int col[KC_WG];
  local int nan_seen;
  const int t = get_local_id(0), nvec = cols / 8;
  if (t == 0) nan_seen = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  float best = -INFINITY;
  int at = cols, nan = 0;  // no column yet
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 f = kc_load8(xr, v);
    const float g[8] = {f.s0, f.s1, f.s2, f.s3, f.s4, f.s5, f.s6, f.s7};
    for (int j = 0; j < 8; ++j) kc_best(g[j], 8 * v + j, &best, &at, &nan);
  }
  if (t < cols - nvec * 8) kc_best(kc_bf16_to_f32(xr[nvec * 8 + t]), nvec * 8 + t, &best, &at, &nan);
  if (nan) atomic_or(&nan_seen, 1);
  val[t] = best;
  col[t] = at;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_WG / 2; o > 0; o >>= 1) {
    if (t < o && (val[t + o] > val[t] || (val[t + o] == val[t] && col[t + o] < col[t]))) val[t] = val[t + o], col[t] = col[t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) id[get_group_id(0)] = nan_seen ? -1 : (col[0] < cols ? col[0] : 0);
}
