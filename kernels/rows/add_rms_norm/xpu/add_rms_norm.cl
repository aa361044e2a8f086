// Residual add then RMS norm on Intel XPU (OpenCL C), bf16: h = bf16(x + r) is written, and
//   rounded (kc_cl_add_rms_norm):           y = bf16(h / sqrt(mean h^2 + eps) * w)
//   once-rounded (kc_cl_add_rms_norm_once): y = bf16(s / sqrt(mean s^2 + eps) * w), s = x + r in fp32
// One work-group of 256 a row: the sum of squares (fma chains, the fixed tree), then a second pass.
#include "kc_rows_cl.h"

inline void kc_add_rms(global const ushort* x, global const ushort* r, global const ushort* w, global ushort* h,
                       global ushort* y, int cols, float eps, int once, local float* red) {
  const size_t base = (size_t)get_group_id(0) * cols;
  float ss = 0.f;
  for (int c = get_local_id(0); c < cols; c += KC_WG) {
    const float s = kc_bf16_to_f32(x[base + c]) + kc_bf16_to_f32(r[base + c]);
    const ushort hb = kc_f32_to_bf16(s);
    h[base + c] = hb;
    const float v = once ? s : kc_bf16_to_f32(hb);
    ss = fma(v, v, ss);
  }
  ss = kc_wg_sum(ss, red);
  const float inv = rsqrt(ss / (float)cols + eps);
  for (int c = get_local_id(0); c < cols; c += KC_WG) {
    const float s = kc_bf16_to_f32(x[base + c]) + kc_bf16_to_f32(r[base + c]);
    const float v = once ? s : kc_bf16_to_f32(kc_f32_to_bf16(s));
    y[base + c] = kc_f32_to_bf16(v * inv * kc_bf16_to_f32(w[c]));
  }
}

KC_ROW_KERNEL void kc_cl_add_rms_norm(global const ushort* x, global const ushort* r, global const ushort* w,
                                      global ushort* h, global ushort* y, int cols, float eps) {
  local float red[KC_WG];  // SLM is declared in a kernel, not a helper (OpenCL C)
  kc_add_rms(x, r, w, h, y, cols, eps, 0, red);
}
KC_ROW_KERNEL void kc_cl_add_rms_norm_once(global const ushort* x, global const ushort* r, global const ushort* w,
                                           global ushort* h, global ushort* y, int cols, float eps) {
  local float red[KC_WG];
  kc_add_rms(x, r, w, h, y, cols, eps, 1, red);
}
