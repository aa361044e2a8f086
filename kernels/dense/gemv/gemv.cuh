// Decode projection y = x . W^T (x [m x k] bf16, W [n x k] bf16, fp32 sums, bf16 or fp32 out), for
// 1..32 rows. A block of 8 warps owns NR rows of W; K is cut into 8 warp slices (warp s takes the
// 256-element chunks s, s + 8, s + 16 ...), each lane loads 16 bytes of every W row a chunk (read
// once, streamed past L1) and of every x row (re-read by every block: cached), and chains its fmas;
// the warp's butterfly adds its lanes, then the 8 slices meet in slice order.
//
// The split-K form (gemv_splitk/) runs the same warp_slice() in a block of its own per slice and
// meets the slices in the same order from a workspace: the same roundings, hence the same bits.
// Fault plants one fault for the controls (controls/cuda/dense_*).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kc::dense_cu {

constexpr int kSlices = 8;            // K slices: warps of a GEMV block
constexpr int kChunk = 32 * 8;        // K elements a warp covers a step
constexpr int kTileK = kSlices * kChunk;  // 2048: K a block covers a step

enum class Fault : int { none, drop_tail, bf16_sums, reversed_meet };

__device__ __forceinline__ void unpack_bf16x8(const uint4& v, float f[8]) {
  const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(u[i] << 16);
    f[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
  }
}

__device__ __forceinline__ float round_bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp's share of K for MB x rows and NR W rows: chunks slice, slice + nslices, ...; every lane
// ends holding the warp's sums.
template <int MB, int NR, Fault F>
__device__ __forceinline__ void warp_slice(const uint4* __restrict__ x, const uint4* __restrict__ w, int M, int N,
                                           int K, int m0, int n0, int slice, int nslices, int lane,
                                           float (&acc)[MB][NR]) {
#pragma unroll
  for (int i = 0; i < MB; ++i)
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[i][r] = 0.f;
  const int kv = K / 8;  // 16-byte vectors a row
  const bool ragged = (K % kTileK) != 0;
  for (int c = slice; c * 32 < kv; c += nslices) {
    const int v = c * 32 + lane;
    if (v >= kv) continue;
    uint4 wv[NR];
#pragma unroll
    for (int r = 0; r < NR; ++r)
      wv[r] = (n0 + r < N) ? __ldcs(w + size_t(n0 + r) * kv + v) : make_uint4(0, 0, 0, 0);
    float wf[NR][8];
#pragma unroll
    for (int r = 0; r < NR; ++r) unpack_bf16x8(wv[r], wf[r]);
    if (F == Fault::drop_tail && ragged && v == kv - 1) {
#pragma unroll
      for (int r = 0; r < NR; ++r) wf[r][7] = 0.f;  // the ragged tail's last column is lost
    }
#pragma unroll
    for (int i = 0; i < MB; ++i) {
      if (m0 + i >= M) break;
      float xf[8];
      unpack_bf16x8(__ldg(x + size_t(m0 + i) * kv + v), xf);
#pragma unroll
      for (int r = 0; r < NR; ++r)
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          acc[i][r] = fmaf(xf[e], wf[r][e], acc[i][r]);
          if (F == Fault::bf16_sums) acc[i][r] = round_bf16(acc[i][r]);
        }
    }
  }
#pragma unroll
  for (int i = 0; i < MB; ++i)
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[i][r] = warp_sum(acc[i][r]);
}

template <class Out> __device__ __forceinline__ void store_out(Out* y, size_t i, float v);
template <> __device__ __forceinline__ void store_out<float>(float* y, size_t i, float v) { y[i] = v; }
template <> __device__ __forceinline__ void store_out<__nv_bfloat16>(__nv_bfloat16* y, size_t i, float v) {
  y[i] = __float2bfloat16_rn(v);
}

}  // namespace kc::dense_cu

// grid (ceil(N / NR), ceil(M / MB)), 256 threads.
template <int MB, int NR, class Out, kc::dense_cu::Fault F = kc::dense_cu::Fault::none>
__global__ void __launch_bounds__(256)
kc_gemv_bf16(const uint4* __restrict__ x, const uint4* __restrict__ w, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::dense_cu;
  __shared__ float red[kSlices][MB * NR];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int n0 = blockIdx.x * NR, m0 = blockIdx.y * MB;
  float acc[MB][NR];
  warp_slice<MB, NR, F>(x, w, M, N, K, m0, n0, warp, kSlices, lane, acc);
  if (lane == 0)
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
      for (int r = 0; r < NR; ++r) red[warp][i * NR + r] = acc[i][r];
  __syncthreads();
  const int t = threadIdx.x;
  if (t < MB * NR) {
    const int i = t / NR, r = t % NR;
    if (m0 + i < M && n0 + r < N) {
      float s = red[0][t];
#pragma unroll
      for (int k = 1; k < kSlices; ++k) s += red[k][t];
      store_out<Out>(y, size_t(m0 + i) * N + n0 + r, s);
    }
  }
}

// The split-K form's slices: grid (ceil(N / NR), kSlices, ceil(M / MB)), one warp a block; slice
// blockIdx.y's sums go to ws[slice][m][n].
template <int MB, int NR>
__global__ void __launch_bounds__(32)
kc_gemv_bf16_slices(const uint4* __restrict__ x, const uint4* __restrict__ w, float* __restrict__ ws, int M, int N,
                    int K) {
  using namespace kc::dense_cu;
  const int lane = threadIdx.x;
  const int n0 = blockIdx.x * NR, m0 = blockIdx.z * MB, slice = blockIdx.y;
  float acc[MB][NR];
  warp_slice<MB, NR, Fault::none>(x, w, M, N, K, m0, n0, slice, kSlices, lane, acc);
  if (lane < MB * NR) {
    float v = 0.f;
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
      for (int r = 0; r < NR; ++r)
        if (lane == i * NR + r) v = acc[i][r];
    const int i = lane / NR, r = lane % NR;
    if (m0 + i < M && n0 + r < N) ws[(size_t(slice) * M + m0 + i) * N + n0 + r] = v;
  }
}

// The split-K form's meeting: one thread an output, slices in order (reversed for the control).
template <class Out, kc::dense_cu::Fault F = kc::dense_cu::Fault::none>
__global__ void __launch_bounds__(256) kc_gemv_bf16_meet(const float* __restrict__ ws, Out* __restrict__ y, int MN) {
  using namespace kc::dense_cu;
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= MN) return;
  float s;
  if (F == Fault::reversed_meet) {
    s = ws[size_t(kSlices - 1) * MN + o];
    for (int k = kSlices - 2; k >= 0; --k) s += ws[size_t(k) * MN + o];
  } else {
    s = ws[o];
#pragma unroll
    for (int k = 1; k < kSlices; ++k) s += ws[size_t(k) * MN + o];
  }
  store_out<Out>(y, o, s);
}

namespace kc::dense_cu {

// Rows of x and of W a block takes, by the number of x rows.
struct GemvShape {
  int mb, nr;
};
inline GemvShape gemv_shape(int M) {
  if (M <= 1) return {1, 4};
  if (M <= 2) return {2, 4};
  if (M <= 4) return {4, 2};
  return {8, 2};
}
// Longest chain: a lane's fmas over its chunks (8 a chunk), the butterfly's 5 adds, 7 slice adds.
inline double gemv_depth(long K) {
  long chunks = (K + kChunk - 1) / kChunk;
  long per_slice = (chunks + kSlices - 1) / kSlices;
  return double(8 * per_slice + 5 + (kSlices - 1));
}

template <class Out, Fault F = Fault::none>
inline void launch_gemv(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  const GemvShape g = gemv_shape(M);
  const dim3 grid((N + g.nr - 1) / g.nr, (M + g.mb - 1) / g.mb);
  auto xx = static_cast<const uint4*>(x);
  auto ww = static_cast<const uint4*>(w);
  if (g.mb == 1) kc_gemv_bf16<1, 4, Out, F><<<grid, 256, 0, st>>>(xx, ww, y, M, N, K);
  else if (g.mb == 2) kc_gemv_bf16<2, 4, Out, F><<<grid, 256, 0, st>>>(xx, ww, y, M, N, K);
  else if (g.mb == 4) kc_gemv_bf16<4, 2, Out, F><<<grid, 256, 0, st>>>(xx, ww, y, M, N, K);
  else kc_gemv_bf16<8, 2, Out, F><<<grid, 256, 0, st>>>(xx, ww, y, M, N, K);
}

// ws: kSlices * M * N floats.
template <class Out, Fault F = Fault::none>
inline void launch_gemv_splitk(const void* x, const void* w, float* ws, Out* y, int M, int N, int K, cudaStream_t st) {
  const GemvShape g = gemv_shape(M);
  const dim3 grid((N + g.nr - 1) / g.nr, kSlices, (M + g.mb - 1) / g.mb);
  auto xx = static_cast<const uint4*>(x);
  auto ww = static_cast<const uint4*>(w);
  if (g.mb == 1) kc_gemv_bf16_slices<1, 4><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  else if (g.mb == 2) kc_gemv_bf16_slices<2, 4><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  else if (g.mb == 4) kc_gemv_bf16_slices<4, 2><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  else kc_gemv_bf16_slices<8, 2><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  const int MN = M * N;
  kc_gemv_bf16_meet<Out, F><<<(MN + 255) / 256, 256, 0, st>>>(ws, y, MN);
}

}  // namespace kc::dense_cu
