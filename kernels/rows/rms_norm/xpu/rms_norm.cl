// RMS norm rows on Intel XPU (OpenCL C): y = x / sqrt(mean(x^2) + eps) * w, bf16 in, fp32 sums, bf16
// out. One work-group a row: the sum of squares (fma chains, then the fixed tree), then a second pass.
#include "kc_rows_cl.h"

KC_ROW_KERNEL void kc_cl_rms_norm(global const ushort* x, global const ushort* w, global ushort* y, int cols, float eps) {
  local float red[KC_WG];
  const size_t base = (size_t)get_group_id(0) * cols;
  float ss = 0.f;
  for (int c = get_local_id(0); c < cols; c += KC_WG) {
    const float v = kc_bf16_to_f32(x[base + c]);
    ss = fma(v, v, ss);
  }
  ss = kc_wg_sum(ss, red);
  const float inv = rsqrt(ss / (float)cols + eps);
  for (int c = get_local_id(0); c < cols; c += KC_WG)
    y[base + c] = kc_f32_to_bf16(kc_bf16_to_f32(x[base + c]) * inv * kc_bf16_to_f32(w[c]));
}
