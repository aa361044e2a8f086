// Decode projection (OpenCL C): y[m, n] = sum_k x[m, k] w[n, k], bf16 x and W (row-major n x k),
// fp32 fma chains, fp32 or bf16 out. A work-group of 256 takes one W row and up to 8 x rows: each
// work-item reads its 16-byte vectors of the W row once (stride 256 vectors) and keeps 8 fma chains,
// one an x row; the ragged last k % 8 columns go one a work-item; then the 8 chains meet in one
// fixed tree in local memory (8 x 256 floats).
#include "kc_rows_cl.h"

#define KC_MT 8

#define KC_FMA8(acc, a, b)                                                                            \
  acc = fma(a.s0, b.s0, acc), acc = fma(a.s1, b.s1, acc), acc = fma(a.s2, b.s2, acc), acc = fma(a.s3, b.s3, acc), \
  acc = fma(a.s4, b.s4, acc), acc = fma(a.s5, b.s5, acc), acc = fma(a.s6, b.s6, acc), acc = fma(a.s7, b.s7, acc)

inline void kc_gemv(global const ushort* x, global const ushort* w, int m, int k, local float* red, float* out) {
  const int t = get_local_id(0), n = get_group_id(0), m0 = get_group_id(1) * KC_MT;
  const int rows = min(KC_MT, m - m0), nvec = k / 8, tail = nvec * 8 + t;
  global const ushort* wr = w + (size_t)n * k;
  float acc[KC_MT] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  for (int v = t; v < nvec; v += KC_WG) {
    const float8 b = kc_load8(wr, v);
    for (int i = 0; i < KC_MT; ++i)
      if (i < rows) {
        const float8 a = kc_load8(x + (size_t)(m0 + i) * k, v);
        KC_FMA8(acc[i], a, b);
      }
  }
  if (tail < k)
    for (int i = 0; i < rows; ++i) acc[i] = fma(kc_bf16_to_f32(x[(size_t)(m0 + i) * k + tail]), kc_bf16_to_f32(wr[tail]), acc[i]);
  for (int i = 0; i < KC_MT; ++i) red[i * KC_WG + t] = acc[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int o = KC_WG / 2; o > 0; o >>= 1) {
    if (t < o)
      for (int i = 0; i < KC_MT; ++i) red[i * KC_WG + t] += red[i * KC_WG + t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *out = t < rows ? red[t * KC_WG] : 0.f;
}

// Grid: n work-groups along dimension 0 (a W row each), ceil(m / 8) along dimension 1.
KC_ROW_KERNEL void kc_cl_gemv_f32(global const ushort* x, global const ushort* w, global float* y, int m, int n, int k) {
  local float red[KC_MT * KC_WG];
  float s;
  kc_gemv(x, w, m, k, red, &s);
  const int t = get_local_id(0), row = get_group_id(1) * KC_MT + t;
  if (t < KC_MT && row < m) y[(size_t)row * n + get_group_id(0)] = s;
}
KC_ROW_KERNEL void kc_cl_gemv_bf16(global const ushort* x, global const ushort* w, global ushort* y, int m, int n, int k) {
  local float red[KC_MT * KC_WG];
  float s;
  kc_gemv(x, w, m, k, red, &s);
  const int t = get_local_id(0), row = get_group_id(1) * KC_MT + t;
  if (t < KC_MT && row < m) y[(size_t)row * n + get_group_id(0)] = kc_f32_to_bf16(s);
}
