// L2-norm rows on CUDA (kc::l2norm's formula): a block of 256 threads a row, each thread up to V
// 16-byte vectors (8 bf16) held in registers, cols a multiple of 8 up to 8,192. With a residual,
// h = bf16(x + r) is stored and normalised. The sum of squares: each thread's 8V squares in a
// chain, the warp's butterfly, the block's 8 warps in order (depth 8V + 5 + 7); rsqrtf; y = v s.
// HALF = 1 sums only the row's first half of the vectors: the control's fault.
#pragma once
#include <cstdint>

#include "../../common/kc_rows.cuh"

namespace kc::cu {
constexpr long kL2MaxCols = 8192;
inline int l2_vpt(long cols) {
  const long nvec = (cols + 7) / 8;
  return nvec <= 256 ? 1 : nvec <= 512 ? 2 : 4;
}
inline double l2_depth(long cols) { return 8.0 * l2_vpt(cols) + 5 + 7; }
// The launcher l2norm.cu exports: x (and r, h where r is not null) bf16 [rows, cols], y bf16.
void l2norm_rows(const void* x, const void* r, void* h, void* y, int rows, int cols, float eps, void* stream);
// The control's kernel (controls/cuda/l2norm): the norm over the first half of the row.
void l2norm_rows_first_half(const void* x, void* y, int rows, int cols, float eps, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
template <int V, bool RES, bool HALF>
__global__ void __launch_bounds__(256)
kc_l2norm_rows(const kc_u4* __restrict__ x, const kc_u4* __restrict__ r, kc_u4* __restrict__ h, kc_u4* __restrict__ y,
               int cols, float eps) {
  using namespace kc::cu;
  __shared__ float red[8];
  const int nvec = cols / 8;
  const long row = blockIdx.x;
  float v[V][8];
  float ss = 0.f;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int c = threadIdx.x + j * kBlock;
    if (c < nvec) {
      unpack8(__ldcs(x + row * nvec + c), v[j]);
      if constexpr (RES) {
        float rr[8];
        unpack8(__ldcs(r + row * nvec + c), rr);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[j][i] = rb(__fadd_rn(v[j][i], rr[i]));
        st16(h + row * nvec + c, kc_u4{pack_bf16(v[j][0], v[j][1]), pack_bf16(v[j][2], v[j][3]),
                                       pack_bf16(v[j][4], v[j][5]), pack_bf16(v[j][6], v[j][7])});
      }
      if (!HALF || c < nvec / 2) {
#pragma unroll
        for (int i = 0; i < 8; ++i) ss = fmaf(v[j][i], v[j][i], ss);
      }
    }
  }
  ss = group_all<false>(ss, red, kBlock, Add{});
  const float s = rsqrtf(__fadd_rn(ss, eps));
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int c = threadIdx.x + j * kBlock;
    if (c < nvec) {
      float o[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) o[i] = __fmul_rn(v[j][i], s);
      st16(y + row * nvec + c, kc_u4{pack_bf16(o[0], o[1]), pack_bf16(o[2], o[3]), pack_bf16(o[4], o[5]),
                                     pack_bf16(o[6], o[7])});
    }
  }
}

template <bool RES, bool HALF>
inline void launch_l2norm_rows(const void* x, const void* r, void* h, void* y, int rows, int cols, float eps,
                               cudaStream_t s) {
  using namespace kc::cu;
  auto* X = static_cast<const kc_u4*>(x);
  auto* R = static_cast<const kc_u4*>(r);
  auto* H = static_cast<kc_u4*>(h);
  auto* Y = static_cast<kc_u4*>(y);
  switch (l2_vpt(cols)) {
    case 1: kc_l2norm_rows<1, RES, HALF><<<rows, kBlock, 0, s>>>(X, R, H, Y, cols, eps); break;
    case 2: kc_l2norm_rows<2, RES, HALF><<<rows, kBlock, 0, s>>>(X, R, H, Y, cols, eps); break;
    default: kc_l2norm_rows<4, RES, HALF><<<rows, kBlock, 0, s>>>(X, R, H, Y, cols, eps); break;
  }
}
#endif
