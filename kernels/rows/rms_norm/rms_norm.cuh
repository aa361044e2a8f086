// RMS norm rows, y = x / sqrt(mean(x^2) + eps) * w, bf16 in, fp32 sums.
// kc_rms_norm_vec: 16-byte loads, the row kept in registers (one pass over memory), a row group of
//   32..256 threads a row (reg_shape: up to 4 vectors a thread, all loaded at once), sum of squares
//   by warp butterfly then the group's warps in order. cols % 8 == 0, cols <= 16,384. Out: float
//   (each store filling whole sectors: store8_f32_pair), Bf16Out or F16Out.
// kc_rms_norm_tree_vec<V> and kc_rms_norm_tree<R>: the block-tree form, fp32 out, one block of 256
//   threads a row, the sum of squares by a 256-leaf binary tree (warp butterflies, then the 8 warps'
//   sums pairwise through shared memory). Where cols % 8 == 0 (to 16,384) thread t loads the row's
//   16-byte vectors t + 256 i, all at once (V = 1, 2, 4 or 8 a thread), its chain the vectors'
//   columns in order, and stores whole 32-byte sectors (store8_f32_pair). At any other width,
//   2-byte loads: thread t keeps columns t + 256 i (its first R = 16, 32 or 64 in registers: the
//   fewest that hold the row, to 16,384 wide; only values past 256 R are read again).
//   H200 (bench/cuda/h200_rows.txt): the 16-byte form runs at 98%, 96% and 95% of copy bandwidth at
//   4,096, 8,192 and 16,384 wide; the 2-byte form, served there before, ran at 98%, 84% and 75%,
//   bound by its load and store instructions (512 threads a row measured no faster).
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// 16-byte vectors where cols % 8 == 0 and the buffers are 16-byte aligned (4, 8 or 16 KiB of x a
// row: 1 to 8 vectors a thread); else values kept a thread: the fewest of 16, 32 and 64 that hold
// the row (fewer registers, more rows an SM), and past 16,384 wide, 64 and the rest read twice.
// The tree launch's form at a width: 1, 2, 4 or 8 16-byte vectors a thread where every buffer is
// 16-byte aligned and the width a multiple of 8, else 16, 32 or 64 columns a thread (2-byte loads).
// The contract's pick reads the same rule.
inline int tree_form(int cols, bool aligned) {
  if (aligned && cols % 8 == 0 && cols <= kMaxCols) {
    const int per = (cols / 8 + 255) / 256;
    return per <= 1 ? 1 : per <= 2 ? 2 : per <= 4 ? 4 : 8;
  }
  return cols <= 256 * 16 ? 16 : cols <= 256 * 32 ? 32 : 64;
}
// Chains: the vector form as reg_depth; the tree form a thread's terms then 8 tree levels. A thread
// adds at most ceil(cols / 256) terms in the 2-byte form and 8 ceil(cols / 2,048) in the 16-byte
// one: the larger of the two holds for either.
constexpr double tree_depth(long cols) {
  const long one = (cols + 255) / 256, vec = 8 * ((cols + 2047) / 2048);
  return double(one > vec ? one : vec) + 8;
}
// The launchers rms_norm.cu exports to the contracts (cuda.cpp), on the harness's stream: the 16-byte
// form (launch_rms_norm_vec) with bf16, fp16 or fp32 y, and the tree form (launch_rms_norm_tree);
// bf16 x [rows, cols] and w [cols].
void rms_norm_bf16_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream);
void rms_norm_f16_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream);
void rms_norm_f32_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream);
void rms_norm_tree_f32(const void* x, const void* w, float* y, int rows, int cols, float eps, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// What the 16-byte forms (kc_rms_norm_vec, kc_rms_norm_tree_vec) share. A thread's x and w vectors
// c = first + i * stride (i < V) of its row, zeros past nvec or off the rows: w is loaded with x, so
// the write after the reduction never waits.
template <int V>
__device__ __forceinline__ void load_xw(const kc_u4* xr, const kc_u4* w, int first, int stride, int nvec, bool live,
                                        kc_u4 (&v)[V], kc_u4 (&wv)[V]) {
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const int c = first + i * stride;
    v[i] = (live && c < nvec) ? ld16(xr + c) : zero4();
    wv[i] = (live && c < nvec) ? ld16(w + c) : zero4();
  }
}
// The thread's sum of squares: one fma chain over its vectors' values in column order.
template <int V> __device__ __forceinline__ float sum_squares(const kc_u4 (&v)[V]) {
  float ss = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    float f[8];
    unpack8(v[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j) ss = fmaf(f[j], f[j], ss);
  }
  return ss;
}
// One vector's outputs: (x * inv) * w.
__device__ __forceinline__ void normed8(const kc_u4& x, const kc_u4& w, float inv, float (&o)[8]) {
  float f[8], g[8];
  unpack8(x, f);
  unpack8(w, g);
#pragma unroll
  for (int j = 0; j < 8; ++j) o[j] = (f[j] * inv) * g[j];
}
}  // namespace kc::cu

template <class Out, int VPT>
__global__ void __launch_bounds__(256)
kc_rms_norm_vec(const kc_u4* __restrict__ x, const kc_u4* __restrict__ w, Out* __restrict__ y, int rows,
                int cols, float eps, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const kc_u4* xr = x + row * nvec;
  kc_u4 v[VPT], wv[VPT];
  load_xw(xr, w, t, tpr, nvec, live, v, wv);
  const float inv = rsqrtf(group_all<false>(sum_squares(v), red, tpr, Add()) / float(cols) + eps);
  if (!live) return;  // whole warps: a row group is 32 or more threads
  Out* yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    if (!IsF32<Out>::value && c >= nvec) break;
    float o[8];
    normed8(v[i], wv[i], inv, o);  // zeros past nvec
    if constexpr (IsF32<Out>::value) {
      if (i * tpr >= nvec) break;  // uniform over the warp: every lane past the row
      store8_f32_pair(reinterpret_cast<float*>(yr), c, nvec, o);
    } else {
      Store8<Out>::at(yr + c * 8, o);
    }
  }
}

namespace kc::cu {
// The tree over a block's 256 sums: 5 levels within the warp (butterfly: every lane ends with its
// warp's sum), then the 8 warps' sums pairwise, read by every thread (one barrier).
__device__ __forceinline__ float tree256(float ss, float* tree) {
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) ss += __shfl_xor_sync(KC_FULL_MASK, ss, m);
  if ((threadIdx.x & 31) == 0) tree[threadIdx.x / 32] = ss;
  __syncthreads();
  return ((tree[0] + tree[1]) + (tree[2] + tree[3])) + ((tree[4] + tree[5]) + (tree[6] + tree[7]));
}
}  // namespace kc::cu

template <int V>
__global__ void __launch_bounds__(256)
kc_rms_norm_tree_vec(const kc_u4* __restrict__ x, const kc_u4* __restrict__ w, float* __restrict__ y, int cols,
                     float eps) {
  using namespace kc::cu;
  __shared__ float tree[8];
  const long row = blockIdx.x;
  const int nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;
  kc_u4 v[V], wv[V];
  load_xw(xr, w, int(threadIdx.x), 256, nvec, true, v, wv);
  const float inv = rsqrtf(tree256(sum_squares(v), tree) / float(cols) + eps);  // zeros past the row add 0
  float* yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    if (i * 256 >= nvec) break;  // uniform over the block: store8_f32_pair needs every lane of the warp
    float o[8];
    normed8(v[i], wv[i], inv, o);
    store8_f32_pair(yr, threadIdx.x + 256 * i, nvec, o);
  }
}

template <int R>
__global__ void __launch_bounds__(256)
kc_rms_norm_tree(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w, float* __restrict__ y, int cols,
                 float eps) {
  using namespace kc::cu;
  __shared__ float tree[8];
  const long row = blockIdx.x;
  const uint16_t* xr = x + row * cols;
  // Every load of the kept values is issued before the first is used (each holds a register while
  // in flight, so R sets the registers). The sum's order is the thread's columns ascending (a value
  // past the row is 0, and fmaf(0, 0, ss) leaves ss as it is).
  float f[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int c = threadIdx.x + 256 * i;
    f[i] = c < cols ? bf16_to_f32(xr[c]) : 0.f;
  }
  float ss = 0.f;
#pragma unroll
  for (int i = 0; i < R; ++i) ss = fmaf(f[i], f[i], ss);
  for (int c = threadIdx.x + 256 * R; c < cols; c += 256) {
    const float v = bf16_to_f32(xr[c]);
    ss = fmaf(v, v, ss);
  }
  const float inv = rsqrtf(tree256(ss, tree) / float(cols) + eps);
  float* yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int c = threadIdx.x + 256 * i;
    if (c < cols) yr[c] = (f[i] * inv) * bf16_to_f32(w[c]);
  }
  for (int c = threadIdx.x + 256 * R; c < cols; c += 256) yr[c] = (bf16_to_f32(xr[c]) * inv) * bf16_to_f32(w[c]);
}

namespace kc::cu {
// The launches, shared by the contract and the benchmark.
template <class Out>
inline void launch_rms_norm_vec(const void* x, const void* w, Out* y, int rows, int cols, float eps, cudaStream_t st,
                                int tpr = 0) {
  RowShape s = reg_shape(cols, tpr);
  if (s.vpt > kMaxVpt) s = reg_shape(cols);  // a forced shape that does not fit in registers
  const dim3 grid((rows + s.rpb - 1) / s.rpb);
  auto xv = static_cast<const kc_u4*>(x);
  auto wv = static_cast<const kc_u4*>(w);
  switch (s.vpt) {
    case 1: kc_rms_norm_vec<Out, 1><<<grid, kBlock, 0, st>>>(xv, wv, y, rows, cols, eps, s.tpr); break;
    case 2: kc_rms_norm_vec<Out, 2><<<grid, kBlock, 0, st>>>(xv, wv, y, rows, cols, eps, s.tpr); break;
    case 4: kc_rms_norm_vec<Out, 4><<<grid, kBlock, 0, st>>>(xv, wv, y, rows, cols, eps, s.tpr); break;
    default: kc_rms_norm_vec<Out, 8><<<grid, kBlock, 0, st>>>(xv, wv, y, rows, cols, eps, s.tpr); break;
  }
}
inline void launch_rms_norm_tree(const void* x, const void* w, float* y, int rows, int cols, float eps, cudaStream_t st) {
  const size_t bits = reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(w) | reinterpret_cast<size_t>(y);
  const int form = tree_form(cols, (bits & 15) == 0);
  auto xv = static_cast<const kc_u4*>(x);
  auto wv = static_cast<const kc_u4*>(w);
  auto xs = static_cast<const uint16_t*>(x);
  auto ws = static_cast<const uint16_t*>(w);
  switch (form) {
    case 1: kc_rms_norm_tree_vec<1><<<rows, 256, 0, st>>>(xv, wv, y, cols, eps); break;
    case 2: kc_rms_norm_tree_vec<2><<<rows, 256, 0, st>>>(xv, wv, y, cols, eps); break;
    case 4: kc_rms_norm_tree_vec<4><<<rows, 256, 0, st>>>(xv, wv, y, cols, eps); break;
    case 8: kc_rms_norm_tree_vec<8><<<rows, 256, 0, st>>>(xv, wv, y, cols, eps); break;
    case 16: kc_rms_norm_tree<16><<<rows, 256, 0, st>>>(xs, ws, y, cols, eps); break;
    case 32: kc_rms_norm_tree<32><<<rows, 256, 0, st>>>(xs, ws, y, cols, eps); break;
    default: kc_rms_norm_tree<64><<<rows, 256, 0, st>>>(xs, ws, y, cols, eps); break;
  }
}
}  // namespace kc::cu
#endif
