// Gate 2 control: a row sum by atomic adds. Each row is cut into KC_CHUNKS chunks, one a work-group
// of 64; a group sums its chunk (a chain a work-item, then a tree) and adds the partial into y[row]
// with a compare-and-swap loop. Which chunk a group takes turns with the launch (rotated by 7 a
// run, reversed on odd runs), so the adds land in another order every run whatever the device's
// scheduling; on a device with many compute units the groups also race. fp32 inputs of spread
// magnitudes give partials whose sum rounds differently in another order.
#define KC_CHUNKS 16
#define KC_CWG 64

kernel void kc_ctl_zero(global float* y, int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 0.f;
}

inline void kc_atomic_add(volatile global float* p, float v) {
  uint old = as_uint(*p), seen;
  while ((seen = atomic_cmpxchg((volatile global uint*)p, old, as_uint(as_float(old) + v))) != old) old = seen;
}

__attribute__((reqd_work_group_size(KC_CWG, 1, 1)))
kernel void kc_ctl_atomic_sum(global const float* x, global float* y, int cols, uint run) {
  local float red[KC_CWG];
  const int row = get_group_id(0) / KC_CHUNKS, g = get_group_id(0) % KC_CHUNKS, t = get_local_id(0);
  const int turn = (g + 7 * (int)run) % KC_CHUNKS, chunk = (run & 1) ? KC_CHUNKS - 1 - turn : turn;
  const int len = (cols + KC_CHUNKS - 1) / KC_CHUNKS, from = chunk * len, to = min(cols, from + len);
  global const float* xr = x + (size_t)row * cols;
  float s = 0.f;
  for (int c = from + t; c < to; c += KC_CWG) s += xr[c];
  red[t] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_CWG / 2; o > 0; o >>= 1) {
    if (t < o) red[t] += red[t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) kc_atomic_add(y + row, red[0]);
}
