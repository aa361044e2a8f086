// Device helpers the rows kernels share (CUDA spelling; kc_gpu.h maps it for HIP): 16-byte vectors
// of eight 16-bit floats, bf16/fp16 conversions rounded to nearest even, NaN-propagating max,
// warp and row-group reductions in a fixed order (so repeated runs give the same bytes), and the
// host-side choice of a row kernel's shape (threads a row, vectors a thread) that both the
// contracts and the benchmark use.
#pragma once
#include "kc_gpu.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
using kc_u4 = uint4;
#else
struct __attribute__((aligned(16))) kc_u4 { uint32_t x, y, z, w; };
#endif

namespace kc::cu {

// Threads a block of every row kernel; a row group (one row) has 32..256 of them.
constexpr int kBlock = 256;

// ---- host side: the shape of a row kernel -------------------------------------------------------

// How a row of `cols` 16-bit elements (cols % 8 == 0 for the vector forms) is spread: each of
// `tpr` threads holds up to `vpt` 16-byte vectors, in registers where the kernel keeps the row.
struct RowShape {
  int vpt;   // vectors a thread: 1, 2, 4 or 8 (the kernels are instantiated at these)
  int tpr;   // threads a row: 32, 64, 128 or 256
  int rpb;   // rows a block: kBlock / tpr
};
constexpr int kMaxVpt = 8;
constexpr long kMaxCols = long(kBlock) * kMaxVpt * 8;  // 16,384 for the register-kept forms

constexpr RowShape row_shape(long cols) {
  long nvec = (cols + 7) / 8;
  int vpt = nvec <= 256 ? 1 : nvec <= 512 ? 2 : nvec <= 1024 ? 4 : 8;
  long per = (nvec + vpt - 1) / vpt;
  int tpr = per <= 32 ? 32 : per <= 64 ? 64 : per <= 128 ? 128 : 256;
  return {vpt, tpr, kBlock / tpr};
}
// Longest chain of fp32 roundings in a row reduction of this shape: each thread adds its vpt*8
// terms in a chain, the warp's butterfly adds 5 levels, the group adds its warps (up to 8) in order.
constexpr double row_depth(long cols) {
  RowShape s = row_shape(cols);
  return 8.0 * s.vpt + 5 + (s.tpr / 32 - 1);
}
// Rows kernels that loop over a row (sum, dot, max, argmax, online softmax) pick threads a row by
// width and loop; a thread adds at most this many terms.
constexpr long loop_terms(long cols) {
  RowShape s = row_shape(cols);
  long nvec = (cols + 7) / 8;
  return ((nvec + s.tpr - 1) / s.tpr) * 8;
}
constexpr double loop_depth(long cols) { return double(loop_terms(cols)) + 5 + (row_shape(cols).tpr / 32 - 1); }

// The fast shape: as few threads a row as let each thread hold at most `most` vectors, so a thread
// issues all its loads at once, narrow rows share a block, and a wide row needs few warps to
// combine. The loop kernels (sum, dot, max, argmax) take 8 a thread (128 bytes in flight); the
// register-kept forms (softmax, RMS norm) 4, which leaves registers for more rows in flight per
// SM. `tpr` names threads a row outright (the benchmark's sweep; 0 = this rule); vectors a thread
// is then the least power of two that covers the row (more than 8 only for the loop kernels).
constexpr int kInFlight = 8;
constexpr int kRegInFlight = 4;
constexpr int pow2_at_least(long n, int lo, int hi) {
  int p = lo;
  while (p < hi && p < n) p *= 2;
  return p;
}
constexpr RowShape fast_shape(long cols, int tpr = 0, int most = kInFlight) {
  const long nvec = (cols + 7) / 8;
  if (tpr <= 0) tpr = pow2_at_least((nvec + most - 1) / most, 32, kBlock);
  const long per = (nvec + tpr - 1) / tpr;
  return {per <= 1 ? 1 : per <= 2 ? 2 : per <= 4 ? 4 : per <= 8 ? 8 : int(per), tpr, kBlock / tpr};
}
constexpr RowShape reg_shape(long cols, int tpr = 0) { return fast_shape(cols, tpr, kRegInFlight); }
// The loop kernels at prompt sizes: with this many rows a warp a row already fills every SM, and a
// warp a row needs no block-wide step (measured on the H200: bench/cuda/bench_rows.cu); fewer
// rows spread a row over more threads (fast_shape).
constexpr long kWarpRowsFrom = 2048;
constexpr int loop_tpr(long rows, long cols, int tpr = 0) {
  return tpr > 0 ? tpr : rows >= kWarpRowsFrom ? 32 : fast_shape(cols).tpr;
}
// Longest fp32 chain of a reduction over threads of `tpr` (as chosen above): a thread's terms in
// order (vectors c = t, t + tpr, ... each adding its 8 lanes), the warp's 5 butterfly levels, then
// the group's warps in order.
constexpr double chain_depth(long cols, int tpr) {
  return double(((cols + 7) / 8 + tpr - 1) / tpr) * 8 + 5 + (tpr / 32 - 1);
}
constexpr double loop_depth(long rows, long cols) { return chain_depth(cols, loop_tpr(rows, cols)); }
constexpr double reg_depth(long cols) { return chain_depth(cols, reg_shape(cols).tpr); }
// Every width the register-kept forms serve fits their shape's threads and registers, blocks hold
// whole rows, and the declared chain covers a thread's terms: checked at compile time.
constexpr bool fast_shapes_fit() {
  for (long cols = 8; cols <= kMaxCols; cols += 8) {
    const RowShape s = reg_shape(cols);
    const long nvec = cols / 8;
    if (s.vpt > kMaxVpt || long(s.vpt) * s.tpr < nvec || s.rpb * s.tpr != kBlock) return false;
    if (s.vpt > 1 && long(s.vpt / 2) * s.tpr >= nvec) return false;  // no wasted instantiation
    if (reg_depth(cols) < double(nvec) / s.tpr * 8 + 5) return false;
    if (loop_depth(1, cols) < double(nvec) / fast_shape(cols).tpr * 8 + 5) return false;
    if (loop_depth(kWarpRowsFrom, cols) < double(nvec) / 32 * 8 + 5) return false;
  }
  return true;
}
static_assert(fast_shapes_fit(), "a served width does not fit its row shape");

#if defined(__CUDACC__) || defined(__HIP__)
// ---- device side ----------------------------------------------------------------------------------

__device__ __forceinline__ float bf16_lo(uint32_t w) { return __int_as_float(int(w << 16)); }
__device__ __forceinline__ float bf16_hi(uint32_t w) { return __int_as_float(int(w & 0xffff0000u)); }
__device__ __forceinline__ float bf16_to_f32(uint16_t b) { return __int_as_float(int(uint32_t(b) << 16)); }

// fp32 -> bf16, round to nearest even; a NaN stays a NaN. nvcc: one cvt.rn.bf16(x2).f32; elsewhere
// the same rounding in integer steps.
#if defined(__CUDACC__)
__device__ __forceinline__ uint32_t f32_to_bf16(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
__device__ __forceinline__ float rb(float f) { return __bfloat162float(__float2bfloat16_rn(f)); }
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}
#else
__device__ __forceinline__ uint32_t f32_to_bf16(float f) {
  uint32_t u = uint32_t(__float_as_int(f));
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
__device__ __forceinline__ float rb(float f) { return bf16_to_f32(uint16_t(f32_to_bf16(f))); }
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) { return f32_to_bf16(lo) | (f32_to_bf16(hi) << 16); }
#endif
// Two floats each rounded to bf16 (nearest even) and back, in one packed conversion: the op-by-op
// activations round every step, and a conversion a value would bound them (conversions issue at a
// fraction of the fp32 rate).
__device__ __forceinline__ void rb2(float& a, float& b) {
  const uint32_t p = pack_bf16(a, b);
  a = bf16_lo(p);
  b = bf16_hi(p);
}
__device__ __forceinline__ uint32_t pack_f16(float lo, float hi) {
  return uint32_t(__half_as_ushort(__float2half_rn(lo))) | (uint32_t(__half_as_ushort(__float2half_rn(hi))) << 16);
}

// Eight bf16 of a 16-byte vector as floats.
__device__ __forceinline__ void unpack8(const kc_u4& v, float (&f)[8]) {
  f[0] = bf16_lo(v.x); f[1] = bf16_hi(v.x); f[2] = bf16_lo(v.y); f[3] = bf16_hi(v.y);
  f[4] = bf16_lo(v.z); f[5] = bf16_hi(v.z); f[6] = bf16_lo(v.w); f[7] = bf16_hi(v.w);
}
__device__ __forceinline__ kc_u4 zero4() { kc_u4 z; z.x = z.y = z.z = z.w = 0; return z; }
__device__ __forceinline__ kc_u4 ld16(const void* p) { return *reinterpret_cast<const kc_u4*>(p); }
__device__ __forceinline__ void st16(void* p, const kc_u4& v) { *reinterpret_cast<kc_u4*>(p) = v; }

// Eight floats stored as the output type: bf16 and fp16 in one 16-byte store, fp32 in two.
template <class Out> struct Store8;
template <> struct Store8<float> {
  __device__ static void at(float* y, const float (&o)[8]) {
    float4* p = reinterpret_cast<float4*>(y);
    p[0] = make_float4(o[0], o[1], o[2], o[3]);
    p[1] = make_float4(o[4], o[5], o[6], o[7]);
  }
};
struct Bf16Out { uint16_t bits; };
struct F16Out { uint16_t bits; };
template <> struct Store8<Bf16Out> {
  __device__ static void at(Bf16Out* y, const float (&o)[8]) {
    kc_u4 v;
    v.x = pack_bf16(o[0], o[1]); v.y = pack_bf16(o[2], o[3]); v.z = pack_bf16(o[4], o[5]); v.w = pack_bf16(o[6], o[7]);
    st16(y, v);
  }
};
template <> struct Store8<F16Out> {
  __device__ static void at(F16Out* y, const float (&o)[8]) {
    kc_u4 v;
    v.x = pack_f16(o[0], o[1]); v.y = pack_f16(o[2], o[3]); v.z = pack_f16(o[4], o[5]); v.w = pack_f16(o[6], o[7]);
    st16(y, v);
  }
};

// fp32 out, eight floats a lane, lanes t and t^1 holding adjacent vectors (c even on the even lane):
// the pair swaps halves so that each 16-byte store of the warp fills whole 32-byte sectors (lane
// 2k and 2k+1 write one vector's 32 bytes together) instead of half of each. Every lane of the warp
// must call it (a shuffle); a vector at or past nvec is not written. A plain fp32 out (two float4
// stores a lane, half sectors) for comparison: Store8<F32Halves>.
struct F32Halves { float v; };
template <> struct Store8<F32Halves> {
  __device__ static void at(F32Halves* y, const float (&o)[8]) { Store8<float>::at(reinterpret_cast<float*>(y), o); }
};
__device__ __forceinline__ void store8_f32_pair(float* yrow, int c, int nvec, const float (&o)[8]) {
  const int odd = int(threadIdx.x) & 1;
  float send[4], got[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) send[k] = odd ? o[k] : o[4 + k];
#pragma unroll
  for (int k = 0; k < 4; ++k) got[k] = __shfl_xor_sync(KC_FULL_MASK, send[k], 1);
  const int ca = c - odd;  // the even lane's vector; the odd lane's is ca + 1
  const float4 first = odd ? make_float4(got[0], got[1], got[2], got[3]) : make_float4(o[0], o[1], o[2], o[3]);
  const float4 second = odd ? make_float4(o[4], o[5], o[6], o[7]) : make_float4(got[0], got[1], got[2], got[3]);
  if (ca < nvec) *reinterpret_cast<float4*>(yrow + ca * 8 + odd * 4) = first;
  if (ca + 1 < nvec) *reinterpret_cast<float4*>(yrow + (ca + 1) * 8 + odd * 4) = second;
}
template <class T> struct IsF32 { static constexpr bool value = false; };
template <> struct IsF32<float> { static constexpr bool value = true; };

// max that keeps a NaN from either side (fmaxf drops it: the gate 1 control shows what that does).
__device__ __forceinline__ float nan_max(float a, float b) { return (a > b || a != a) ? a : b; }

// The same in one instruction where the chip has it (max.NaN, sm_80 on), for users that only need
// "NaN if any NaN, else the max": the NaN's payload and a zero max's sign may differ from
// nan_max's (softmax: x - (+0) == x - (-0); argmax: its key ties -0 with +0 and every NaN).
__device__ __forceinline__ float max_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return nan_max(a, b);
#endif
}
struct MaxNan { __device__ float operator()(float a, float b) const { return max_nan(a, b); } };

// The max of two bf16 pairs, each half NaN if either is (max.NaN.bf16x2, sm_80 on: one instruction
// for two values, where a max of floats needs both unpacked first); elsewhere per half, exactly.
__device__ __forceinline__ uint32_t max2_nan_bf16(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t r;
  asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  const float lo = max_nan(bf16_lo(a), bf16_lo(b)), hi = max_nan(bf16_hi(a), bf16_hi(b));
  return (__float_as_uint(lo) >> 16) | (__float_as_uint(hi) & 0xffff0000u);  // both exact bf16 values
#endif
}

constexpr float kInf = __builtin_huge_valf();

// e^(x - m) with the subtraction's own rounding folded back in (TwoSum), so a large |x - m| does
// not grow expf's input error into the result: what is left is expf's ulps and one fma.
// Branch-free (a select, not a jump: softmax is near its issue limit): an infinity or NaN in d
// takes expf's own result, which already has float64's class.
__device__ __forceinline__ float exp_diff(float x, float m) {
  const float d = x - m;
  const float e = expf(d);
  const float bb = d - x;
  const float r = (x - (d - bb)) + (-m - bb);
  const float c = fmaf(e, r, e);
  return fabsf(d) <= 3.4e38f ? c : e;
}

// Where a thread of a row kernel stands: thread t of the tpr of its row group, on row `row` (a block
// holds kBlock / tpr rows), live where that row exists; a row is nvec 16-byte vectors.
struct RowThread {
  int t;
  long row;
  bool live;
  int nvec;
};
__device__ __forceinline__ RowThread row_thread(int rows, int cols, int tpr) {
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  return {t, row, row < rows, cols / 8};
}

// Visits a thread's vectors c = t, t + tpr, ... below nvec in order, loading U of them before it
// uses any, so each thread keeps U 16-byte loads in flight; the order of use is unchanged.
template <int U = kInFlight, class Load, class Use>
__device__ __forceinline__ void strided(int t, int tpr, int nvec, Load load, Use use) {
  using V = decltype(load(0));
  int c = t;
  for (; c + (U - 1) * tpr < nvec; c += U * tpr) {
    V v[U];
#pragma unroll
    for (int i = 0; i < U; ++i) v[i] = load(c + i * tpr);
#pragma unroll
    for (int i = 0; i < U; ++i) use(v[i], c + i * tpr);
  }
  // The tail: fewer than U vectors left, still loaded together before the first use.
  V v[U - 1];
#pragma unroll
  for (int i = 0; i < U - 1; ++i)
    if (c + i * tpr < nvec) v[i] = load(c + i * tpr);
#pragma unroll
  for (int i = 0; i < U - 1; ++i)
    if (c + i * tpr < nvec) use(v[i], c + i * tpr);
}

struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
struct Max { __device__ float operator()(float a, float b) const { return nan_max(a, b); } };

// Butterfly over the warp: every lane ends with the same value, combined in the same order each run.
template <class Op> __device__ __forceinline__ float warp_all(float v, Op op) {
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) v = op(v, __shfl_xor_sync(KC_FULL_MASK, v, m));
  return v;
}
__device__ __forceinline__ uint32_t warp_max_u32(uint32_t v) {
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) {
    uint32_t o = uint32_t(__shfl_xor_sync(KC_FULL_MASK, int(v), m));
    v = o > v ? o : v;
  }
  return v;
}

// Reduce over a row group of `tpr` threads (a whole number of warps, tpr uniform in the block):
// the warp's butterfly, then the group's warps added in order. Every thread of the block must call
// it (it holds __syncthreads when a group spans warps); `red` is 8 floats of shared memory. With
// REUSE = false the caller never writes `red` again, so the barrier that frees it is left out.
template <bool REUSE = true, class Op> __device__ __forceinline__ float group_all(float v, float* red, int tpr, Op op) {
  v = warp_all(v, op);
  if (tpr == 32) return v;
  const int warp = threadIdx.x / 32, wpg = tpr / 32, first = warp / wpg * wpg;
  if ((threadIdx.x & 31) == 0) red[warp] = v;
  __syncthreads();
  float r = red[first];
  for (int i = 1; i < wpg; ++i) r = op(r, red[first + i]);
  if (REUSE) __syncthreads();  // red is free again for the next reduction
  return r;
}
__device__ __forceinline__ uint32_t group_max_u32(uint32_t v, uint32_t* red, int tpr) {
  v = warp_max_u32(v);
  if (tpr == 32) return v;
  const int warp = threadIdx.x / 32, wpg = tpr / 32, first = warp / wpg * wpg;
  if ((threadIdx.x & 31) == 0) red[warp] = v;
  __syncthreads();
  uint32_t r = red[first];
  for (int i = 1; i < wpg; ++i) r = red[first + i] > r ? red[first + i] : r;
  __syncthreads();
  return r;
}

// A bf16's rank as an unsigned 16-bit key: larger key = larger value; every NaN ranks above +inf
// (and NaNs tie); -0 and +0 tie. With the inverted column below it, keys are unique per row and a
// larger key means "larger value, then lower id".
__device__ __forceinline__ uint32_t bf16_rank(uint32_t b) {
  if ((b & 0x7fffu) > 0x7f80u) return 0xffffu;  // NaN
  if (b == 0x8000u) b = 0;                      // -0 ties +0
  return (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u);
}
__device__ __forceinline__ uint32_t rank_key(uint32_t b, int col) { return (bf16_rank(b) << 16) | uint32_t(0xffff - col); }
__device__ __forceinline__ int key_col(uint32_t key) { return 0xffff - int(key & 0xffffu); }
#endif

}  // namespace kc::cu
