// MLX affine decode at 4 and 8 bits (and 2 bits in groups of 64 and 128) for 1..8 x rows, fed by
// Hopper's bulk copies: the form launch_qmv takes on an sm_90 device whose loaded image is sm_90a, where
// K is a multiple of 8 groups and a block's shared memory (below) fits two blocks an SM. Everywhere
// else qmv.cuh's mma.sync kernel serves.
//
// Why: qmv.cuh's kernel is bound by instruction issue (ncu, H200, 4 bits, group 64, 14,336 x 4,096,
// 1 row: 536 warp instructions a warp's 16 rows x 256 k, of them ~160 building load addresses and
// tests and ~100 the groups' terms). Here a producer warp copies each stage (16 W rows x 1,024 bytes
// of codes, their scales and biases: one cp.async.bulk a row and array) into a ring of shared memory,
// and the consumers' step is ~290 instructions (ncu), 176 of them turning codes into bf16. H200, group
// 64, one row: 14,336 x 4,096 in 14.5 us against the mma.sync kernel's 19.6, 4,096 x 14,336 14.8
// against 20.5, 4,096^2 7.1 against 8.2 (bench/cuda/dense/h200_results.txt).
//
// A block: 8 consumer warps and the producer warp. Before the ring starts, the consumers take x whole
// into shared memory in one pass (16-byte loads; at 8 bits a bulk copy a row, then the pass in place)
// with sum x of every group and x row (a lane's 8 k in order, then a lane tree over the group; fp32),
// each 8 k of x permuted on the way to the order codes leave a word in (mma.sync lets any permutation
// of k stand for its slots if codes and x share it): at 2 bits the pairs (j, j + 8) of 16 k, at 4
// bits (0, 4), (1, 5), (2, 6), (3, 7) (one shift and one lop3 a pair), at 8 bits (0, 2), (1, 3), (4,
// 6), (5, 7) (bytes 0 and 2 of a word, then of the word shifted by 8). A warp's step is 128 bytes of
// each code row (512 k at 2 bits, 256 at 4, 128 at 8); warp w takes step w of every 8-step stage
// (qmv.cuh's slices); a lane (4 g + t) takes rows g and g + 8, and in each group of the step its
// GROUP BITS / 128 words of each row (one or two shared loads), x row g (x row M - 1 where g >= M:
// those columns are never stored).
// Summation order, per output: for each group of the slice (increasing k) its sum x q is two chains of
// GROUP / 32 mma steps from zero (2 bits: a word's steps alternating; 4 bits: each word's first and
// second step; 8 bits: a word a step, words alternating; each way half the latency a chain), added; the
// slice's accumulator takes s (sum x q), then b (sum x), by one fma each; the 8 slices meet in slice
// order in shared memory, summed by one warp while the others go on to the next tile.
// Chained launch (kc_pdl.cuh): the kernel lets the next launch start once its blocks are resident,
// and its producer streams weights from the start, while the consumers wait for the kernel ahead
// before they copy x (and so before any store of y). Back to back, a launch's first stages then
// load while the one ahead drains: H200, 1 row, group 64, 14,336 x 4,096: 8 bits 23.0 -> 18.2 us,
// 4 bits 14.5 -> 12.8, 2 bits 13.9 -> 12.6; 4,096^2 at 4 bits 7.4 -> 6.2 (bench history, eighteenth
// session). The weights must then not be written by the kernel just ahead on the stream (an engine
// loads them once); x may be: gate 2's chained run holds the kernel to that.
// Included by qmv.cuh (after the code helpers it shares), never on its own.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../common/kc_gpu.h"
#include "../../common/kc_pdl.cuh"
#include "../../common/kc_store.cuh"
#include "../../dense/gemm/gemm_sm90a.cuh"

namespace kc::qmv90 {

constexpr int kWarps = 8;                  // consumer warps: K slices
constexpr int kThreads = 32 * (kWarps + 1);  // and the producer warp
constexpr int kRows = 16;                  // W rows a tile (an mma's)
constexpr int kStages = 3;
// Tiles' meetings in flight: a warp writes tile j + kMeets's partials only after every warp released
// the stage after tile j, so after tile j's reducer read them (kMeets > kStages holds for any C).
constexpr int kMeets = 4;
constexpr int kSmemMax = 113 * 1024;       // the largest block taken: two blocks an SM (228 KiB)

// A warp's step: 128 bytes of each of the tile's code rows (512 k at 2 bits, 256 at 4, 128 at 8); a
// stage, the 8 warps' steps (kChunk k).
template <int BITS> constexpr int kStepK = 1024 / BITS;
template <int BITS> constexpr int kChunkK = kWarps * kStepK<BITS>;

// A stage: 16 rows of codes (1,024 bytes and a pad: a quad's reads of rows g = 0..7 fall in distinct
// banks), then the 16 rows' scales and the 16 rows' biases (kChunk / GROUP each, a pad of 16 bytes).
template <int BITS, int GROUP> struct Stage {
  static constexpr int kChunk = kChunkK<BITS>;
  static constexpr int kSpan = GROUP * BITS / 128;          // words of a row a lane takes in a group
  static constexpr int kStride = kChunk * BITS / 8 + 16 * kSpan;  // a code row's bytes
  static constexpr int kSBRow = kChunk / GROUP * 2 + 16;    // a scale (or bias) row's bytes
  static constexpr int kCodes = kRows * kStride;
  static constexpr int kBytes = kCodes + 2 * kRows * kSBRow;
};

// Shared memory, in bytes: barriers, the slices' meeting (kMeets buffers x 8 warps x a warp's
// outputs: 16 at one row, the quads' first lanes' c0 and c2; 128 beyond), sum x (groups x 8 rows), x
// (rows of K + 32 bf16: 64 bytes apart in banks), the stages.
struct Layout {
  int red, X, xs, stages, total;
};
template <int BITS, int GROUP> __host__ __device__ inline Layout layout(int M, int K) {
  Layout l;
  l.red = 128;
  l.X = l.red + kMeets * kWarps * (M == 1 ? 16 : 128) * 4;
  l.xs = l.X + (K / GROUP) * 8 * 4;
  l.stages = (l.xs + (K / 8 + 4) * M * 16 + 127) / 128 * 128;
  l.total = l.stages + kStages * Stage<BITS, GROUP>::kBytes;
  return l;
}

// Bits and groups the form has: 4 and 8 bits, and 2 bits in groups of 64 or 128 (a lane takes at least
// a word of a row in each group).
constexpr bool serves(int bits, int group) { return bits == 4 || bits == 8 || (bits == 2 && group >= 64); }
// Shapes the form takes: its bits and groups; 1..8 rows; K a multiple of 8 groups (every stage's scale
// rows then start and end on 16 bytes, as bulk copies need); two blocks an SM.
template <int BITS, int GROUP> __host__ __device__ inline bool fits(int M, int K) {
  return serves(BITS, GROUP) && M >= 1 && M <= 8 && K % (8 * GROUP) == 0 &&
         layout<BITS, GROUP>(M, K).total <= kSmemMax;
}

// Longest chain of roundings for an output: a group's mma chains (3 a k, as qmv_depth counts: 3 GROUP
// bounds the two chains of GROUP / 2 k and their add), its fma into the accumulator, two fmas a group
// on the slice's chain (at most ceil(ceil(K / step) / 8) steps of step / GROUP groups, step =
// kStepK<BITS>), the 7 slice adds; sum x (8 + log2(GROUP / 8) adds) is shorter.
template <int BITS> inline double depth(long K, long group) {
  const long step = kStepK<BITS>, steps = (K + step - 1) / step;
  long groups = (steps + kWarps - 1) / kWarps * (step / group);
  if (groups > K / group) groups = K / group;
  return 3.0 * double(group) + 1 + 2.0 * double(groups) + double(kWarps - 1);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t sa(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint64_t* b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sa(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mbar_expect(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sa(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}\n" ::"r"(sa(b)),
      "r"(parity)
      : "memory");
}
// One bulk copy global -> shared (16-byte aligned ends), counted on barrier bar.
__device__ __forceinline__ void bulk(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(sa(dst)),
               "l"(src), "r"(bytes), "r"(sa(bar))
               : "memory");
}
__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;" ::"r"(kWarps * 32) : "memory"); }
#endif
#if defined(__CUDACC__)
// Bytes 0 and 2 of w (8-bit codes) as a bf16 pair, exactly, in four instructions: 0x4300 | (q & 127)
// is the bf16 128 + (q & 127); 0x4300 | (q & 128) is 128 or 256, less 256 is -128 or 0; their sum is q
// (each step exact: every value is an integer below 256 with at most 8 significant bits).
__device__ __forceinline__ uint32_t bytes02_bf16x2(uint32_t w) {
  const uint32_t c = 0x43004300u, c256 = 0x43804380u;
  uint32_t lo, hi;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(lo) : "r"(w), "r"(0x007F007Fu), "r"(c));  // (a & b) | c
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(hi) : "r"(w), "r"(0x00800080u), "r"(c));
  const __nv_bfloat162 h =
      __hsub2(*reinterpret_cast<__nv_bfloat162*>(&hi), *reinterpret_cast<const __nv_bfloat162*>(&c256));
  const __nv_bfloat162 v = __hadd2(*reinterpret_cast<__nv_bfloat162*>(&lo), h);
  return *reinterpret_cast<const uint32_t*>(&v);
}
// x's permutation (see the header): a word of a0's and b0's low bf16, one of their high ones, then the
// same of a1 and b1.
__device__ __forceinline__ uint4 pair_halves(uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1) {
  return make_uint4(__byte_perm(a0, b0, 0x5410), __byte_perm(a0, b0, 0x7632), __byte_perm(a1, b1, 0x5410),
                    __byte_perm(a1, b1, 0x7632));
}
#endif

}  // namespace kc::qmv90

// grid (min(tiles, the blocks the device holds at once)), kThreads; a block walks 16-row tiles
// blockIdx.x, + gridDim.x, ...; dynamic shared memory layout<BITS, GROUP>(M, K).total.
template <int BITS, int GROUP, bool kOne, class Out>
__global__ void __launch_bounds__(kc::qmv90::kThreads, 2)
kc_qmv90(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
         const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::qmv90;
  using St = Stage<BITS, GROUP>;
  static_assert(serves(BITS, GROUP), "2 (groups of 64, 128), 4 or 8 bits");
  constexpr int kWarpOut = kOne ? 16 : 128;  // a warp's partials a tile (at one row lanes 4g's c0, c2)
  constexpr int kStep = kStepK<BITS>, kChunk = kChunkK<BITS>;
  constexpr int kGroupsStep = kStep / GROUP;
  extern __shared__ __align__(128) unsigned char sm[];
  const Layout L = layout<BITS, GROUP>(M, K);
  uint64_t* full = reinterpret_cast<uint64_t*>(sm);
  uint64_t* empty = full + kStages;
  uint64_t* xbar = empty + kStages;
  uint64_t* meet = xbar + 1;  // kMeets: each tile's 8 slices written
  float* red = reinterpret_cast<float*>(sm + L.red);
  float* X = reinterpret_cast<float*>(sm + L.X);
  uint4* xs = reinterpret_cast<uint4*>(sm + L.xs);
  unsigned char* st0 = sm + L.stages;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int G = K / GROUP, K8 = K / 8, tiles = (N + kRows - 1) / kRows, C = (K + kChunk - 1) / kChunk;
  // Every consumer lane arrives on a stage's empty barrier and a tile's meeting barrier (not one lane
  // after __syncwarp): the same time on the H200, and compute-sanitizer's racecheck then sees each
  // lane's reads and writes ordered before the barrier (with one lane it reported hazards on both).
  if (tid == 0) {
    for (int i = 0; i < kStages; ++i) mbar_init(full + i, 1), mbar_init(empty + i, kWarps * 32);
    mbar_init(xbar, 1);
    for (int i = 0; i < kMeets; ++i) mbar_init(meet + i, kWarps * 32);
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  kc_let_next_start();  // every block is resident (the grid is at most what the device holds)

  if (warp == kWarps) {  // the producer: the whole warp walks the stages (uniform values), one lane copies
    uint32_t one;
    asm volatile("{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(one));
    const auto* qb = reinterpret_cast<const unsigned char*>(q);
    const auto* sb = reinterpret_cast<const unsigned char*>(s);
    const auto* bb = reinterpret_cast<const unsigned char*>(b);
    const size_t qrow = size_t(K) * BITS / 8, srow = size_t(G) * 2;
    int slot = 0, i = 0;
    uint32_t ph = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const int rows = min(kRows, N - tile * kRows);
      for (int c = 0; c < C; ++c, ++i) {
        if (i >= kStages) mbar_wait(empty + slot, ph ^ 1);
        const int k0 = c * kChunk, kl = min(kChunk, K - k0);
        const uint32_t cb = uint32_t(kl * BITS / 8), gb = uint32_t(kl / GROUP * 2);
        const size_t n0 = size_t(tile) * kRows;
        const unsigned char* src = qb + n0 * qrow + size_t(k0) * BITS / 8;
        const unsigned char* ss = sb + n0 * srow + size_t(k0 / GROUP) * 2;
        const unsigned char* bs = bb + (ss - sb);
        unsigned char* dst = st0 + slot * St::kBytes;
        if (one) {
          mbar_expect(full + slot, (cb + 2 * gb) * rows);
          for (int r = 0; r < rows; ++r) {
            bulk(dst + r * St::kStride, src, cb, full + slot);
            bulk(dst + St::kCodes + r * St::kSBRow, ss, gb, full + slot);
            bulk(dst + St::kCodes + (kRows + r) * St::kSBRow, bs, gb, full + slot);
            src += qrow, ss += srow, bs += srow;
          }
        }
        __syncwarp();
        if (++slot == kStages) slot = 0, ph ^= 1;
      }
    }
    return;
  }

  // x, sum x, and x permuted (see the header); x only once the kernel ahead has ended, which may
  // still write it (the launch is chained: the producer's weights stream in meanwhile). One pass,
  // each 16 bytes summed and permuted as they land, where a bulk copy and two passes over shared
  // memory were: H200, 1 row, 4,096^2 at 2 bits 6.2 -> 5.1 us, 4 bits 6.6 -> 6.4, 14,336 x 4,096 at 4
  // bits 13.1 -> 12.8. At 8 bits plain loads were slower at 14,336 x 4,096 (20.1 against 19.3): x
  // still comes by a bulk copy there, the pass then in place (19.5 -> 19.4; 4,096^2 9.2 -> 8.8).
  kc_wait_ahead();
  const int RS = K8 + 4;  // a row's stride in uint4
  constexpr bool kBulkX = BITS == 8;
  if (kBulkX && tid == 0) {
    mbar_expect(xbar, uint32_t(M) * K * 2);
    for (int m = 0; m < M; ++m) bulk(xs + m * RS, x + size_t(m) * K, uint32_t(K) * 2, xbar);
  }
  const uint4* xg = reinterpret_cast<const uint4*>(x);
  for (int e = tid; e < 8 * G; e += kWarps * 32)
    if (e % 8 >= M) X[e] = 0.f;  // rows past M
  // A lane's vectors (two at 2 bits, whose codes pair k j and j + 8 of 16 k; else one), each's 8 k in
  // order, then their sum (the tree's first level), then a lane tree over the group: every lane ends
  // with the group's sum.
  if (kBulkX) mbar_wait(xbar, 0);
  constexpr int kV = BITS == 2 ? 2 : 1;
  constexpr int kLanesG = GROUP / (8 * kV);  // lanes of a group's sum
  const int KV = K8 / kV;  // a multiple of 32 (K is of 8 groups, 64 k or more at 2 bits): whole warps
#pragma unroll 4
  for (int e = tid; e < M * KV; e += kWarps * 32) {
    const int m = e / KV, c = kV * (e % KV);
    uint4 v[kV];
    float a = 0.f;
#pragma unroll
    for (int i = 0; i < kV; ++i) {
      v[i] = kBulkX ? xs[m * RS + c + i] : xg[size_t(m) * K8 + c + i];
      const uint32_t w[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
      float h = 0.f;
#pragma unroll
      for (int j = 0; j < 4; ++j) h += __uint_as_float(w[j] << 16), h += __uint_as_float(w[j] & 0xffff0000u);
      a = i ? a + h : h;
    }
#pragma unroll
    for (int o = 1; o < kLanesG; o *= 2) a += __shfl_xor_sync(0xffffffffu, a, o);
    if ((c / kV) % kLanesG == 0) X[(c / kV / kLanesG) * 8 + m] = a;
    const uint4 p = v[0], u = v[kV - 1];
    if constexpr (BITS == 2) {
      xs[m * RS + c] = pair_halves(p.x, u.x, p.y, u.y);
      xs[m * RS + c + 1] = pair_halves(p.z, u.z, p.w, u.w);
    } else if constexpr (BITS == 4) {
      xs[m * RS + c] = pair_halves(p.x, p.z, p.y, p.w);
    } else {
      xs[m * RS + c] = pair_halves(p.x, p.y, p.z, p.w);
    }
  }
  consumers_sync();

  const int g = lane >> 2, t = lane & 3, gx = g < M ? g : M - 1;
  // The lane's fixed offsets: its words in a stage (row g; row g + 8 is 8 strides on), its rows'
  // scales (biases 16 rows on), its x (row gx), its sum x columns (2t, 2t + 1).
  constexpr int kXSpan = St::kSpan * 4 / BITS;  // x vectors (8 k) of the lane's words (32 / BITS k a word)
  const unsigned wofs = unsigned(warp) * 128 + unsigned(g) * St::kStride + unsigned(t) * St::kSpan * 4;
  const unsigned sofs = St::kCodes + unsigned(g) * St::kSBRow + unsigned(warp) * kGroupsStep * 2;
  const uint4* xl = xs + gx * RS + warp * (kStep / 8) + t * kXSpan;
  const float* Xl = X + warp * kGroupsStep * 8 + 2 * t;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int slot = 0, j = 0;  // j: the block's tiles so far
  uint32_t ph = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (int c = 0; c < C; ++c) {
      mbar_wait(full + slot, ph);
      const int kb = c * kChunk + warp * kStep;
      if (kb < K) {
        const unsigned char* sp = st0 + slot * St::kBytes;
        const unsigned char* rg = sp + wofs;
        const unsigned char* rh = rg + 8 * St::kStride;
        // The step's scales and biases of rows g and g + 8 (1, 2, 4 or 8 bf16 each).
        uint32_t sw[2][(kGroupsStep + 1) / 2], bw[2][(kGroupsStep + 1) / 2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const unsigned char* ps = sp + sofs + h * 8 * St::kSBRow;
          const unsigned char* pb = ps + kRows * St::kSBRow;
          if constexpr (kGroupsStep == 1) {
            sw[h][0] = *reinterpret_cast<const uint16_t*>(ps), bw[h][0] = *reinterpret_cast<const uint16_t*>(pb);
          } else if constexpr (kGroupsStep == 2) {
            sw[h][0] = *reinterpret_cast<const uint32_t*>(ps), bw[h][0] = *reinterpret_cast<const uint32_t*>(pb);
          } else if constexpr (kGroupsStep == 4) {
            const uint2 a = *reinterpret_cast<const uint2*>(ps), d = *reinterpret_cast<const uint2*>(pb);
            sw[h][0] = a.x, sw[h][1] = a.y, bw[h][0] = d.x, bw[h][1] = d.y;
          } else {
            const uint4 a = *reinterpret_cast<const uint4*>(ps), d = *reinterpret_cast<const uint4*>(pb);
            sw[h][0] = a.x, sw[h][1] = a.y, sw[h][2] = a.z, sw[h][3] = a.w;
            bw[h][0] = d.x, bw[h][1] = d.y, bw[h][2] = d.z, bw[h][3] = d.w;
          }
        }
        const uint4* xp = xl + c * (kChunk / 8);
        const float* Xp = Xl + c * (kChunk / GROUP) * 8;
#pragma unroll
        for (int gi = 0; gi < kGroupsStep; ++gi) {
          if (kb + gi * GROUP >= K) break;
          uint32_t wg[St::kSpan], wh[St::kSpan];
          const int at = gi * GROUP * BITS / 8;
          if constexpr (St::kSpan == 1) {
            wg[0] = *reinterpret_cast<const uint32_t*>(rg + at), wh[0] = *reinterpret_cast<const uint32_t*>(rh + at);
          } else if constexpr (St::kSpan == 2) {
            const uint2 a = *reinterpret_cast<const uint2*>(rg + at), d = *reinterpret_cast<const uint2*>(rh + at);
            wg[0] = a.x, wg[1] = a.y, wh[0] = d.x, wh[1] = d.y;
          } else {
#pragma unroll
            for (int i = 0; i < St::kSpan / 4; ++i) {
              const uint4 a = *reinterpret_cast<const uint4*>(rg + at + 16 * i);
              const uint4 d = *reinterpret_cast<const uint4*>(rh + at + 16 * i);
              wg[4 * i] = a.x, wg[4 * i + 1] = a.y, wg[4 * i + 2] = a.z, wg[4 * i + 3] = a.w;
              wh[4 * i] = d.x, wh[4 * i + 1] = d.y, wh[4 * i + 2] = d.z, wh[4 * i + 3] = d.w;
            }
          }
          float cq[4] = {0.f, 0.f, 0.f, 0.f}, cr[4] = {0.f, 0.f, 0.f, 0.f};  // two chains, half as long
#pragma unroll
          for (int u = 0; u < St::kSpan; ++u) {
            if constexpr (BITS == 2) {  // a word is four mma steps: codes (j, j + 8), x as permuted
              const uint4 x0 = xp[gi * GROUP / 8 + 2 * u], x1 = xp[gi * GROUP / 8 + 2 * u + 1];
              uint32_t pg[8], qh[8];
#pragma unroll
              for (int j = 0; j < 8; ++j) pg[j] = kc::affine_cu::codes_bf16x2<2>(wg[u] >> (2 * j), 0x00030003u),
                     qh[j] = kc::affine_cu::codes_bf16x2<2>(wh[u] >> (2 * j), 0x00030003u);
              const uint32_t a0[4] = {pg[0], qh[0], pg[1], qh[1]}, a1[4] = {pg[2], qh[2], pg[3], qh[3]};
              const uint32_t a2[4] = {pg[4], qh[4], pg[5], qh[5]}, a3[4] = {pg[6], qh[6], pg[7], qh[7]};
              kc_mma_m16n8k16_bf16(cq, a0, x0.x, x0.y);
              kc_mma_m16n8k16_bf16(cr, a1, x0.z, x0.w);
              kc_mma_m16n8k16_bf16(cq, a2, x1.x, x1.y);
              kc_mma_m16n8k16_bf16(cr, a3, x1.z, x1.w);
            } else if constexpr (BITS == 4) {
              const uint4 xv = xp[gi * GROUP / 8 + u];  // x pairs (0, 4), (1, 5), (2, 6), (3, 7) of the word's 8 k
              uint32_t pg[4], qh[4];
#pragma unroll
              for (int j = 0; j < 4; ++j) pg[j] = kc::affine_cu::codes_bf16x2<4>(wg[u] >> (4 * j), 0x000F000Fu),
                     qh[j] = kc::affine_cu::codes_bf16x2<4>(wh[u] >> (4 * j), 0x000F000Fu);  // nibbles j, j + 4
              const uint32_t a0[4] = {pg[0], qh[0], pg[1], qh[1]}, a1[4] = {pg[2], qh[2], pg[3], qh[3]};
              kc_mma_m16n8k16_bf16(cq, a0, xv.x, xv.y);
              kc_mma_m16n8k16_bf16(cr, a1, xv.z, xv.w);
            } else {  // a word is one mma step: bytes (0, 2) and (1, 3), x pairs as permuted; words alternate chains
              const uint4 xv = xp[gi * GROUP / 8 + u / 2];
              const uint32_t a[4] = {bytes02_bf16x2(wg[u]), bytes02_bf16x2(wh[u]), bytes02_bf16x2(wg[u] >> 8),
                                     bytes02_bf16x2(wh[u] >> 8)};
              if (u % 2 == 0) kc_mma_m16n8k16_bf16(cq, a, xv.x, xv.y);
              else kc_mma_m16n8k16_bf16(cr, a, xv.z, xv.w);
            }
          }
#pragma unroll
          for (int c = 0; c < 4; ++c) cq[c] += cr[c];
          float sv[2], bv[2];
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const uint32_t ws = sw[h][gi / 2], wb = bw[h][gi / 2];
            sv[h] = __uint_as_float(gi % 2 ? ws & 0xffff0000u : ws << 16);
            bv[h] = __uint_as_float(gi % 2 ? wb & 0xffff0000u : wb << 16);
          }
          const float2 xx = *reinterpret_cast<const float2*>(Xp + gi * 8);
          acc[0] = fmaf(bv[0], xx.x, fmaf(sv[0], cq[0], acc[0]));
          acc[2] = fmaf(bv[1], xx.x, fmaf(sv[1], cq[2], acc[2]));
          if (!kOne) {
            acc[1] = fmaf(bv[0], xx.y, fmaf(sv[0], cq[1], acc[1]));
            acc[3] = fmaf(bv[1], xx.y, fmaf(sv[1], cq[3], acc[3]));
          }
        }
      }
      mbar_arrive(empty + slot);  // every lane: its reads of the stage are done
      if (++slot == kStages) slot = 0, ph ^= 1;
    }
    // The tile's 8 slices meet in slice order, without holding the block: each warp leaves its
    // partials and arrives; warp j % 8 waits for the eight and stores the sums.
    {
      const int mb = j % kMeets;
      float* rp = red + mb * (kWarps * kWarpOut);
      if (kOne) {
        if (t == 0) rp[warp * 16 + g] = acc[0], rp[warp * 16 + 8 + g] = acc[2];
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) rp[(warp * 4 + c) * 32 + lane] = acc[c];
      }
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[c] = 0.f;
      mbar_arrive(meet + mb);
      if (warp == j % kWarps) {
        mbar_wait(meet + mb, uint32_t(j / kMeets) & 1);
#pragma unroll
        for (int o = 0; o < (kWarpOut + 31) / 32; ++o) {
          const int e = o * 32 + lane;  // one output a lane
          int n, m;
          if (kOne) n = tile * kRows + e, m = 0;
          else n = tile * kRows + (lane >> 2) + 8 * (o >> 1), m = 2 * (lane & 3) + (o & 1);
          if ((!kOne || lane < 16) && n < N && m < M) {
            float v = rp[e];
#pragma unroll
            for (int w = 1; w < kWarps; ++w) v += rp[w * kWarpOut + e];
            kc_store<Out>(y, size_t(m) * N + n, v);
          }
        }
      }
    }
    ++j;
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::qmv90 {
// Does this process take this form (an sm_90 device, the sm_90a image loaded; KC_CUDA_NO_WGMMA=1 says
// no, as for the wgmma kernels)?
inline bool use() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}
// Host side with internal linkage: a __global__ template's launch stub and its opt-in are each
// translation unit's own (gemv.cuh: GemvUnit).
namespace {
// Both kernels of a group opt in to kSmemMax once (false where that failed: the launch then says why).
template <int BITS, int GROUP, class Out> inline bool prepare() {
  static const bool ok = cudaFuncSetAttribute(kc_qmv90<BITS, GROUP, true, Out>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemMax) == cudaSuccess &&
                         cudaFuncSetAttribute(kc_qmv90<BITS, GROUP, false, Out>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemMax) == cudaSuccess;
  return ok;
}
// Blocks each walking tiles blockIdx.x, + gridDim.x, ...: `grid` of them where given (tests drive a
// few blocks over many tiles), else as many as the device holds at once at this block's shared memory.
template <int BITS, int GROUP, bool kOne, class Out>
inline void launch_one(const uint16_t* x, const uint32_t* q, const uint16_t* s, const uint16_t* b, Out* y, int M,
                       int N, int K, cudaStream_t st, int grid) {
  auto kern = kc_qmv90<BITS, GROUP, kOne, Out>;
  const int bytes = layout<BITS, GROUP>(M, K).total;
  if (grid <= 0) {
    static int at = -1, per = 0;  // the last shared size asked, and its blocks an SM
    const int sms = kc_sm_count() > 0 ? kc_sm_count() : 1;
    if (at != bytes) {
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, kThreads, bytes) != cudaSuccess)
        (void)cudaGetLastError(), per = 0;
      at = bytes;
    }
    const int tiles = (N + kRows - 1) / kRows, most = per * sms;
    grid = most > 0 && tiles > most ? most : tiles;
  }
  (void)kc_launch_chained(kern, dim3(grid), dim3(kThreads), size_t(bytes), st, x, q, s, b, y, M, N, K);
}
template <int BITS, int GROUP, class Out>
inline void launch(const void* x, const void* q, const void* s, const void* b, Out* y, int M, int N, int K,
                   cudaStream_t st, int grid = 0) {
  (void)prepare<BITS, GROUP, Out>();
  auto xx = static_cast<const uint16_t*>(x);
  auto qq = static_cast<const uint32_t*>(q);
  auto ss = static_cast<const uint16_t*>(s);
  auto bb = static_cast<const uint16_t*>(b);
  if (M == 1) launch_one<BITS, GROUP, true, Out>(xx, qq, ss, bb, y, M, N, K, st, grid);
  else launch_one<BITS, GROUP, false, Out>(xx, qq, ss, bb, y, M, N, K, st, grid);
}
}  // namespace
}  // namespace kc::qmv90
