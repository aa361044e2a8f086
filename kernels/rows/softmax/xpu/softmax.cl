// Softmax rows on Intel XPU (OpenCL C): y = exp(x - max) / sum exp(x - max), bf16 in and out, fp32
// sums. Three passes over the row (max, sum, write), each reduction in the fixed tree. A NaN in the
// row gives a NaN max and so a NaN row, as float64 does.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_softmax(global const ushort* x, global ushort* y, int cols) {
  local float red[KC_WG];
  const size_t base = (size_t)get_group_id(0) * cols;
  float m = -INFINITY;
  for (int c = get_local_id(0); c < cols; c += KC_WG) m = kc_nan_max(m, kc_bf16_to_f32(x[base + c]));
  m = kc_wg_max(m, red);
  float s = 0.f;
  for (int c = get_local_id(0); c < cols; c += KC_WG) s += exp(kc_bf16_to_f32(x[base + c]) - m);
  s = kc_wg_sum(s, red);
  const float inv = 1.0f / s;
  for (int c = get_local_id(0); c < cols; c += KC_WG) y[base + c] = kc_f32_to_bf16(exp(kc_bf16_to_f32(x[base + c]) - m) * inv);
}
