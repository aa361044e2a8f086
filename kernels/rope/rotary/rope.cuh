// RoPE with the fused q/k norm on CUDA (kc::rope's formula): a warp a head, heads of q and k over a
// grid-stride loop, two a warp at a time. Lane l holds pairs l E .. l E + E - 1 (dim = 64 E, E = 1 .. 4): in the half-split form E
// contiguous elements of each half, in the interleaved form 2E contiguous elements, each loaded
// and stored as one vector. inv_freq is the fp32 rounding of theta^(-2i/dim) (formed in double once
// a lane); the angle float(pos) * inv_freq in fp32 (__fmul_rn: never fused), then sincosf (2 ulp
// over its whole range). The norm's sum of squares: each lane's 2E squares in a chain, then the
// warp's butterfly (depth 2E + 5); rsqrtf; n = bf16(v r), v' = bf16(n w).
#pragma once
#include <cstdint>

#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Forms and the controls' faults, as template arguments.
enum RopePairs { kRopeHalves = 0, kRopeInterleaved = 1 };
enum RopeAngles { kRopeComputed = 0, kRopeTable = 1 };
enum RopeNorm { kRopeNoNorm = 0, kRopeNormBefore = 1, kRopeNormAfter = 2 };
enum RopeFault { kRopeOk = 0, kRopePositionZero = 1, kRopeHalfFrequency = 2, kRopeNormUnrounded = 3 };

struct RopeArgs {
  const void *q, *k;
  const int32_t* pos;
  const void *cos, *sin;  // bf16 [rows, dim] tables (kRopeTable)
  const void *q_w, *k_w;  // bf16 [dim] norm weights
  void *q_out, *k_out;
  int tokens, heads, kv, dim;
  double theta;
  float eps;
};
// Head dims the kernel takes: 64, 128, 192, 256 (E = 1 .. 4).
inline bool rope_dim_ok(long dim) { return dim == 64 || dim == 128 || dim == 192 || dim == 256; }
inline int rope_blocks(const RopeArgs& a) {
  const long warps = long(a.tokens) * (a.heads + a.kv);
  const long b = (warps + 7) / 8;
  return int(b < 132 * 16 ? b : 132 * 16);  // up to 16 blocks an SM of an H100; the rest loop
}
// The launcher rope.cu exports: `pairs`, `angles`, `norm` as the enums above.
// false for a form it does not serve (the registration then throws).
bool rope_bf16(const RopeArgs& a, int pairs, int angles, int norm, void* stream);
// The controls' kernels (controls/cuda/rope), the half-split form with computed angles.
bool rope_bf16_fault(const RopeArgs& a, int norm, int fault, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// N contiguous bf16 at p (N = 1, 2, 4, 8: one load or store of 2N bytes; other N one at a time).
template <int N> __device__ __forceinline__ void load_bf16(const uint16_t* p, float* f) {
  if constexpr (N != 1 && N != 2 && N != 4 && N != 8) {
#pragma unroll
    for (int i = 0; i < N; ++i) f[i] = bf16_to_f32(p[i]);
  } else if constexpr (N == 1) {
    f[0] = bf16_to_f32(*p);
  } else if constexpr (N == 2) {
    const uint32_t w = *reinterpret_cast<const uint32_t*>(p);
    f[0] = bf16_lo(w), f[1] = bf16_hi(w);
  } else if constexpr (N == 4) {
    const uint2 w = *reinterpret_cast<const uint2*>(p);
    f[0] = bf16_lo(w.x), f[1] = bf16_hi(w.x), f[2] = bf16_lo(w.y), f[3] = bf16_hi(w.y);
  } else {
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    const uint32_t u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) f[2 * i] = bf16_lo(u[i]), f[2 * i + 1] = bf16_hi(u[i]);
  }
}
template <int N> __device__ __forceinline__ void store_bf16(uint16_t* p, const float* f) {
  if constexpr (N != 1 && N != 2 && N != 4 && N != 8) {
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = uint16_t(f32_to_bf16(f[i]));
  } else if constexpr (N == 1) {
    *p = uint16_t(f32_to_bf16(f[0]));
  } else if constexpr (N == 2) {
    *reinterpret_cast<uint32_t*>(p) = pack_bf16(f[0], f[1]);
  } else if constexpr (N == 4) {
    *reinterpret_cast<uint2*>(p) = make_uint2(pack_bf16(f[0], f[1]), pack_bf16(f[2], f[3]));
  } else {
    *reinterpret_cast<uint4*>(p) =
        make_uint4(pack_bf16(f[0], f[1]), pack_bf16(f[2], f[3]), pack_bf16(f[4], f[5]), pack_bf16(f[6], f[7]));
  }
}

// A lane's E pairs of a head's 64E bf16 values at p (a: first of each pair, b: second): the two
// halves' lane-th runs, or E adjacent pairs.
template <int E, int PAIRS>
__device__ __forceinline__ void load_pairs(const uint16_t* p, int lane, float (&a)[E], float (&b)[E]) {
  if constexpr (PAIRS == kRopeHalves) {
    load_bf16<E>(p + lane * E, a);
    load_bf16<E>(p + 32 * E + lane * E, b);
  } else {
    float v[2 * E];
    load_bf16<2 * E>(p + 2 * lane * E, v);
#pragma unroll
    for (int e = 0; e < E; ++e) a[e] = v[2 * e], b[e] = v[2 * e + 1];
  }
}

// The per-head norm of a lane's 2E values (a: first of each pair, b: second), weights at their
// elements: bf16(bf16(v r) w), r = rsqrt(sum v^2 / dim + eps) over the warp.
template <int E, int PAIRS, int FAULT>
__device__ __forceinline__ void rope_norm(float (&a)[E], float (&b)[E], const uint16_t* w, int lane, float eps) {
  constexpr int D = 64 * E;
  float ss = 0.f;
#pragma unroll
  for (int e = 0; e < E; ++e) ss = fmaf(b[e], b[e], fmaf(a[e], a[e], ss));
  ss = warp_all(ss, Add{});
  const float r = rsqrtf(__fdiv_rn(ss, float(D)) + eps);
  float wa[E], wb[E];
  load_pairs<E, PAIRS>(w, lane, wa, wb);
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const float na = __fmul_rn(a[e], r), nb = __fmul_rn(b[e], r);
    a[e] = rb(__fmul_rn(FAULT == kRopeNormUnrounded ? na : rb(na), wa[e]));
    b[e] = rb(__fmul_rn(FAULT == kRopeNormUnrounded ? nb : rb(nb), wb[e]));
  }
}
}  // namespace kc::cu

namespace kc::cu {
// Head g of the flattened [tokens, heads + kv]: its token, whether it is q's, and its element offset.
struct RopeHead {
  long t, at;
  bool isq;
};
__device__ __forceinline__ RopeHead rope_head(const RopeArgs& args, long g, int D) {
  const long heads = args.heads + args.kv, t = g / heads;
  const int j = int(g % heads);
  const bool isq = j < args.heads;
  return {t, (isq ? t * args.heads + j : t * args.kv + (j - args.heads)) * D, isq};
}
template <int E, int PAIRS>
__device__ __forceinline__ void rope_load(const RopeArgs& args, const RopeHead& h, int lane, float (&a)[E], float (&b)[E]) {
  load_pairs<E, PAIRS>(static_cast<const uint16_t*>(h.isq ? args.q : args.k) + h.at, lane, a, b);
}
template <int E, int PAIRS, int ANGLES, int NORM, int FAULT>
__device__ __forceinline__ void rope_finish(const RopeArgs& args, const RopeHead& h, int lane, const float (&inv)[E],
                                            float (&a)[E], float (&b)[E]) {
  constexpr int D = 64 * E, H = 32 * E;
  const uint16_t* w = static_cast<const uint16_t*>(h.isq ? args.q_w : args.k_w);
  if constexpr (NORM == kRopeNormBefore) rope_norm<E, PAIRS, FAULT>(a, b, w, lane, args.eps);
  const int p = FAULT == kRopePositionZero ? 0 : args.pos[h.t];
  float c[E], s[E];
  if constexpr (ANGLES == kRopeTable) {
    load_bf16<E>(static_cast<const uint16_t*>(args.cos) + long(p) * D + lane * E, c);
    load_bf16<E>(static_cast<const uint16_t*>(args.sin) + long(p) * D + lane * E, s);
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e) sincosf(__fmul_rn(float(p), inv[e]), &s[e], &c[e]);
  }
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const float ya = __fsub_rn(__fmul_rn(a[e], c[e]), __fmul_rn(b[e], s[e]));
    const float yb = __fadd_rn(__fmul_rn(b[e], c[e]), __fmul_rn(a[e], s[e]));
    a[e] = ya, b[e] = yb;
  }
  if constexpr (NORM == kRopeNormAfter) {
#pragma unroll
    for (int e = 0; e < E; ++e) a[e] = rb(a[e]), b[e] = rb(b[e]);
    rope_norm<E, PAIRS, FAULT>(a, b, w, lane, args.eps);
  }
  uint16_t* y = static_cast<uint16_t*>(h.isq ? args.q_out : args.k_out) + h.at;
  if constexpr (PAIRS == kRopeHalves) {
    store_bf16<E>(y + lane * E, a);
    store_bf16<E>(y + H + lane * E, b);
  } else {
    float v[2 * E];
#pragma unroll
    for (int e = 0; e < E; ++e) v[2 * e] = a[e], v[2 * e + 1] = b[e];
    store_bf16<2 * E>(y + 2 * lane * E, v);
  }
}
}  // namespace kc::cu

// Two heads a warp an iteration, both loaded before either is computed (twice the loads in flight);
// `two` is the same on every lane of a warp, so the norm's butterfly sees the whole warp.
template <int E, int PAIRS, int ANGLES, int NORM, int FAULT>
__global__ void __launch_bounds__(256) kc_rope(kc::cu::RopeArgs args) {
  using namespace kc::cu;
  constexpr int D = 64 * E;
  const int lane = threadIdx.x & 31;
  float inv[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int i = lane * E + e;
    inv[e] = float(exp2(-(2.0 * i / D) * log2(args.theta)) * (FAULT == kRopeHalfFrequency ? 0.5 : 1.0));
  }
  const long all = long(args.tokens) * (args.heads + args.kv), step = long(gridDim.x) * 8;
  for (long g = long(blockIdx.x) * 8 + threadIdx.x / 32; g < all; g += 2 * step) {
    const bool two = g + step < all;
    const RopeHead h0 = rope_head(args, g, D), h1 = rope_head(args, two ? g + step : g, D);
    float a0[E], b0[E], a1[E], b1[E];
    rope_load<E, PAIRS>(args, h0, lane, a0, b0);
    if (two) rope_load<E, PAIRS>(args, h1, lane, a1, b1);
    rope_finish<E, PAIRS, ANGLES, NORM, FAULT>(args, h0, lane, inv, a0, b0);
    if (two) rope_finish<E, PAIRS, ANGLES, NORM, FAULT>(args, h1, lane, inv, a1, b1);
  }
}

template <int PAIRS, int ANGLES, int NORM, int FAULT>
inline void launch_rope(const kc::cu::RopeArgs& a, cudaStream_t s) {
  const int blocks = kc::cu::rope_blocks(a);
  switch (a.dim) {
    case 64: kc_rope<1, PAIRS, ANGLES, NORM, FAULT><<<blocks, 256, 0, s>>>(a); break;
    case 128: kc_rope<2, PAIRS, ANGLES, NORM, FAULT><<<blocks, 256, 0, s>>>(a); break;
    case 192: kc_rope<3, PAIRS, ANGLES, NORM, FAULT><<<blocks, 256, 0, s>>>(a); break;
    default: kc_rope<4, PAIRS, ANGLES, NORM, FAULT><<<blocks, 256, 0, s>>>(a); break;
  }
}
#endif
