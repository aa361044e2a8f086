// Gate 4 control: a row dot summed in half. Each product is rounded to fp16 and added into an fp16
// accumulator (a work-item's chain, then the tree in fp16): in half arithmetic where the device has
// cl_khr_fp16, else through half storage (vstore_half_rte, core OpenCL C), which rounds the same.
// Its spec claims fp32 sums of a depth so deep that gate 3's gamma term hides fp16's error: only gate
// 4's exact integer sums, which run past fp16's range, can show it.
#include "kc_rows_cl.h"

#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
inline float kc_h(float f) { return (float)(half)f; }
#else
inline float kc_h(float f) {
  ushort bits;
  vstore_half_rte(f, 0, (half*)&bits);
  return vload_half(0, (const half*)&bits);
}
#endif

KC_ROW_KERNEL void kc_ctl_half_dot(global const ushort* x, global const ushort* w, global float* y, int cols) {
  local float red[KC_WG];
  global const ushort* xr = x + (size_t)get_group_id(0) * cols;
  const int t = get_local_id(0);
  float s = 0.f;  // always an fp16 value
  for (int c = t; c < cols; c += KC_WG) s = kc_h(s + kc_h(kc_bf16_to_f32(xr[c]) * kc_bf16_to_f32(w[c])));
  red[t] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_WG / 2; o > 0; o >>= 1) {
    if (t < o) red[t] = kc_h(red[t] + red[t + o]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) y[get_group_id(0)] = red[0];
}
