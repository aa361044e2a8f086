// Residual add then RMS norm, bf16, one pass (the row kept in registers), 16-byte loads:
//   h = bf16(x + r) is written, then
//   rounded (ONCE = false):     y = bf16(h / sqrt(mean h^2 + eps) * w)   (MLX: the norm reads bf16 h)
//   once-rounded (ONCE = true): y = bf16(s / sqrt(mean s^2 + eps) * w), s = x + r in fp32
// cols % 8 == 0, cols <= 16,384; row groups as rms_norm.cuh.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// The launchers add_rms_norm.cu exports to the contracts (cuda.cpp): bf16 x, r, h and y [rows, cols]
// and w [cols], on the harness's stream; the rounded form (launch_add_rms_norm<false>) and the
// once-rounded one (<true>).
void add_rms_norm_rounded(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols, float eps,
                          void* stream);
void add_rms_norm_once_rounded(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols,
                               float eps, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
template <bool ONCE, int VPT>
__global__ void __launch_bounds__(256)
kc_add_rms_norm(const kc_u4* __restrict__ x, const kc_u4* __restrict__ r, const kc_u4* __restrict__ w,
                kc_u4* __restrict__ h, kc_u4* __restrict__ y, int rows, int cols, float eps, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const long base = row * nvec;
  kc_u4 xv[VPT], rv[VPT], wv[VPT];  // w with x and r: the write phase never waits on a load
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    const bool ok = live && c < nvec;
    xv[i] = ok ? ld16(x + base + c) : zero4();
    rv[i] = ok ? ld16(r + base + c) : zero4();
    wv[i] = ok ? ld16(w + c) : zero4();
  }
  // s = x + r in fp32 (kept for the once-rounded form), h = bf16(s) written either way.
  float ss = 0.f;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    float a[8], b[8], s[8];
    unpack8(xv[i], a);
    unpack8(rv[i], b);
#pragma unroll
    for (int j = 0; j < 8; ++j) s[j] = a[j] + b[j];
    kc_u4 hv;
    hv.x = pack_bf16(s[0], s[1]); hv.y = pack_bf16(s[2], s[3]); hv.z = pack_bf16(s[4], s[5]); hv.w = pack_bf16(s[6], s[7]);
    if (live && t + i * tpr < nvec) st16(h + base + t + i * tpr, hv);
    if (!ONCE) {
      xv[i] = hv;  // the rounded form's norm reads h
      unpack8(hv, s);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) ss = fmaf(s[j], s[j], ss);
  }
  ss = group_all(ss, red, tpr, Add());
  const float inv = rsqrtf(ss / float(cols) + eps);
  if (!live) return;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    if (c >= nvec) break;
    float s[8], g[8], o[8];
    if (ONCE) {
      float a[8], b[8];
      unpack8(xv[i], a);
      unpack8(rv[i], b);
#pragma unroll
      for (int j = 0; j < 8; ++j) s[j] = a[j] + b[j];
    } else {
      unpack8(xv[i], s);
    }
    unpack8(wv[i], g);
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = (s[j] * inv) * g[j];
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + base + c), o);
  }
}

namespace kc::cu {
template <bool ONCE>
inline void launch_add_rms_norm(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols,
                                float eps, cudaStream_t st) {
  const RowShape s = row_shape(cols);
  const dim3 grid((rows + s.rpb - 1) / s.rpb);
  auto X = static_cast<const kc_u4*>(x);
  auto R = static_cast<const kc_u4*>(r);
  auto W = static_cast<const kc_u4*>(w);
  auto H = static_cast<kc_u4*>(h);
  auto Y = static_cast<kc_u4*>(y);
  switch (s.vpt) {
    case 1: kc_add_rms_norm<ONCE, 1><<<grid, kBlock, 0, st>>>(X, R, W, H, Y, rows, cols, eps, s.tpr); break;
    case 2: kc_add_rms_norm<ONCE, 2><<<grid, kBlock, 0, st>>>(X, R, W, H, Y, rows, cols, eps, s.tpr); break;
    case 4: kc_add_rms_norm<ONCE, 4><<<grid, kBlock, 0, st>>>(X, R, W, H, Y, rows, cols, eps, s.tpr); break;
    default: kc_add_rms_norm<ONCE, 8><<<grid, kBlock, 0, st>>>(X, R, W, H, Y, rows, cols, eps, s.tpr); break;
  }
}
}  // namespace kc::cu
#endif
