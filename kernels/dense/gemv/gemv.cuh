// Decode projection y = x . W^T (x [m x k] bf16, W [n x k] bf16, fp32 sums, bf16 or fp32 out), for
// 1..32 rows, on tensor cores (mma.sync m16n8k16: 16 W rows by 8 x rows by 16 k a step).
//
// A block of 8 warps owns 16 * NT rows of W and every x row it serves (8 * MT of them: M up to 32
// in one block), so each 16-byte piece of W is loaded once (streamed past L1) and used for all rows.
// K is cut into 32-element chunks; chunk c belongs to warp slice (c / 4) % 8, so a warp takes runs
// of 4 chunks (128 k), all 4 loaded before any is summed. In a chunk, lane 4g + t loads the 16 bytes
// at k = 32c + 8t of W rows g and g + 8 and of x row g of each 8-row x tile (x is small and shared by
// every block: read through L1); these 8 k fill the lane's k slots of two mma steps (mma.sync lets
// any permutation of k stand for its 16 slots, as long as W and x use the same one). The next run's
// loads are issued before a run is summed.
// Summation order, per output: a chain of mma steps over the slice's chunks in increasing k (each
// step adds 16 products inside the tensor core), one fp32 accumulator per output; then the 8 slices
// meet in slice order (slice 0 + slice 1 + ... + slice 7), in shared memory here, from a workspace
// in the split-K form (gemv_splitk/), which runs the same warp_slice() a slice a block: the same
// roundings, hence the same bits.
// Fault plants one fault for the controls (controls/cuda/dense_*).
// On an sm_90 device whose loaded image is sm_90a, launch_gemv and launch_gemv_splitk take the
// wgmma form instead (gemv_sm90a.cuh: 64 W rows a block, K in parts a cluster meets); the controls'
// faults stay in these mma.sync kernels, but for the reversed meeting, which is the split-K form's.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "../../common/kc_gpu.h"

namespace kc::dense_cu {

constexpr int kSlices = 8;                           // K slices: warps of a GEMV block
constexpr int kChunkK = 32;                          // K a warp covers a chunk (8 a lane of a quad)
constexpr int kRun = 4;                              // chunks a slice takes at a time
constexpr int kRunK = kRun * kChunkK;                // 128
constexpr int kTileK = kSlices * kRunK;              // 1,024: K the 8 slices cover before repeating
constexpr int kRowsW = 16;                           // W rows of an mma tile
constexpr int kRowsX = 8;                            // x rows of an mma tile

// early_x (CUDA only): launched chained (kc_pdl.cuh), the kernel waits on the one ahead only after
// its loads of x, before its stores.
enum class Fault : int { none, drop_tail, bf16_sums, reversed_meet, early_x };

// x tiles (of 8 rows) and W tiles (of 16 rows) a block takes, by the number of x rows: every row a
// launch serves (up to 32) sits in one block, so W is read once.
struct GemvShape {
  int mt, nt;
};
inline GemvShape gemv_shape(int M) {
  if (M <= 8) return {1, 1};
  if (M <= 16) return {2, 1};
  return {4, 1};
}
// Longest chain of roundings for an output: the slice's mma steps over at most
// ceil(ceil(k / 128) / 8) runs of 128 k (each of the slice's k counted as three fp32 roundings: an
// mma adds 16 exact products to its accumulator with an internal alignment that may truncate rather
// than round, which NVIDIA does not document; the same wide count as dense/gemm's), then 7 slice adds.
inline double gemv_depth(long K) {
  const long runs = (K + kRunK - 1) / kRunK;
  const long per_slice = (runs + kSlices - 1) / kSlices;
  const long terms = per_slice * kRunK < K ? per_slice * kRunK : K;
  return 3.0 * double(terms) + double(kSlices - 1);
}

// The wgmma form's x rows a launch carries (8, 16, 32) and parts of K (1, 2, 4, 8; gemv_sm90a.cuh).
struct GemvWgmmaForm {
  int nx, parts;
};

// The decode projection's host side that depends on the unit holding its kernels. Without relocatable
// device code a __global__ template's launch stub, and so its opt-in, is each translation unit's own,
// and so are the wgmma form's cached answers (gemv_sm90a.cuh): dense/gemv (gemv.cu), its split-K
// replacement (gemv_splitk.cu) and the split-K control (controls/cuda/dense) each hold their copy of
// the kernels and answer for it through their own table. With one answer for all (external linkage)
// the linker kept one unit's copy for both contracts, and the other's kernels went to gate 5 not
// opted in (the H200 run of c3caea7: dense/gemv_splitk/bf16's wgmma parts at 49,152 bytes).
template <class Out> struct GemvUnit {
  bool (*wgmma)();                                   // runs the wgmma form (an sm_90 device, the unit's sm_90a image)
  void (*prepare)();                                 // opts in the unit's wgmma kernels where it runs them
  double (*depth)(long M, long N, long K);           // the depth of the form launch_gemv takes at a shape
  GemvShape (*mma_form)(int M, int N);               // the mma.sync form launch_gemv takes (gemv_form)
  GemvWgmmaForm (*wgmma_form)(int M, int N, int K);  // the wgmma form launch_gemv takes (kc::gemv90::form)
  void (*launch)(const void* x, const void* w, Out* y, int M, int N, int K, void* stream);  // launch_gemv
};
// The tables the device units export to their registrations (cuda.cpp), Out __nv_bfloat16 or float,
// and the split-K launcher (launch_gemv_splitk; ws: kSlices * M * N floats) of gemv_splitk.cu.
template <class Out> const GemvUnit<Out>& gemv_unit();         // gemv.cu
template <class Out> const GemvUnit<Out>& gemv_splitk_unit();  // gemv_splitk.cu
template <class Out>
void gemv_splitk_launch(const void* x, const void* w, float* ws, Out* y, int M, int N, int K, void* stream);

}  // namespace kc::dense_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include "../../common/kc_store.cuh"

#if defined(__CUDACC__)
#include <cstdint>

#include "../../common/kc_pdl.cuh"
#include "gemv_sm90a.cuh"  // CUDA only: the HIP build of these sources has no wgmma form
#endif

namespace kc::dense_cu {

__device__ __forceinline__ float round_bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

// One warp's slice of K for x rows m0 .. m0 + 8 MT and W rows n0 .. n0 + 16 NT: acc[nt][mt] holds
// the mma accumulators (lane 4g + t: W rows g, g + 8 at x rows 2t, 2t + 1 of the tiles).
template <int MT, int NT, Fault F>
__device__ __forceinline__ void warp_slice(const uint4* __restrict__ x, const uint4* __restrict__ w, int M, int N,
                                           int K, int m0, int n0, int slice, int lane, float (&acc)[NT][MT][4]) {
#pragma unroll
  for (int a = 0; a < NT; ++a)
#pragma unroll
    for (int b = 0; b < MT; ++b)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[a][b][i] = 0.f;
  const int g = lane >> 2, t = lane & 3;
  const int kv = K / 8;  // 16-byte vectors a row
  const bool ragged = (K % kTileK) != 0;
  const uint4* wr[NT][2];
  bool wok[NT][2];
#pragma unroll
  for (int a = 0; a < NT; ++a)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int n = n0 + a * kRowsW + g + 8 * h;
      wok[a][h] = n < N;
      wr[a][h] = w + size_t(wok[a][h] ? n : 0) * kv;
    }
  const uint4* xr[MT];
  bool xok[MT];
#pragma unroll
  for (int b = 0; b < MT; ++b) {
    const int m = m0 + b * kRowsX + g;
    xok[b] = m < M;
    xr[b] = x + size_t(xok[b] ? m : 0) * kv;
  }
  const int runs = (kv + kRun * 4 - 1) / (kRun * 4);  // 4 vectors a chunk
  // A run's loads: W (from memory, streamed) and x (through L1). For one W tile the next run's W
  // (and for one x tile its x) are issued before this run is summed, so a warp always has loads from
  // memory in flight; more x tiles load theirs as a run is summed (registers: two blocks an SM). Two
  // W tiles load their run's W as it starts (the registers of a second run would leave one block an
  // SM: slower on the H200); the other block's warps cover the wait. The order of the sums is the
  // same in every form.
  constexpr bool kAheadX = MT == 1, kAheadW = NT == 1;
  auto load_w = [&](int r, uint4 (&wv)[kRun][NT][2]) {
#pragma unroll
    for (int u = 0; u < kRun; ++u) {
      const int v = (r * kRun + u) * 4 + t;
      const bool in = v < kv;
#pragma unroll
      for (int a = 0; a < NT; ++a)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          wv[u][a][h] = (in && wok[a][h]) ? __ldcs(wr[a][h] + v) : make_uint4(0, 0, 0, 0);
          if (F == Fault::drop_tail && ragged && v == kv - 1) wv[u][a][h].w &= 0xffffu;  // last column lost
        }
    }
  };
  auto load_x = [&](int r, int u, uint4 (&xv)[MT]) {
    const int v = (r * kRun + u) * 4 + t;
#pragma unroll
    for (int b = 0; b < MT; ++b) xv[b] = (v < kv && xok[b]) ? __ldg(xr[b] + v) : make_uint4(0, 0, 0, 0);
  };
  uint4 wv[kRun][NT][2], xa[kRun][kAheadX ? MT : 1];
  if (kAheadW && slice < runs) {
    load_w(slice, wv);
    if constexpr (kAheadX)
#pragma unroll
      for (int u = 0; u < kRun; ++u) load_x(slice, u, xa[u]);
  }
  for (int r = slice; r < runs; r += kSlices) {
    uint4 wn[kRun][NT][2] = {}, xn[kRun][kAheadX ? MT : 1] = {};
    if (!kAheadW) load_w(r, wv);
    if (kAheadW && r + kSlices < runs) {
      load_w(r + kSlices, wn);
      if constexpr (kAheadX)
#pragma unroll
        for (int u = 0; u < kRun; ++u) load_x(r + kSlices, u, xn[u]);
    }
#pragma unroll
    for (int u = 0; u < kRun; ++u) {
      uint4 xv[MT];
      if constexpr (kAheadX) {
#pragma unroll
        for (int b = 0; b < MT; ++b) xv[b] = xa[u][b];
      } else {
        load_x(r, u, xv);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int a = 0; a < NT; ++a) {
          const uint32_t w0[4] = {wv[u][a][0].x, wv[u][a][0].y, wv[u][a][0].z, wv[u][a][0].w};
          const uint32_t w1[4] = {wv[u][a][1].x, wv[u][a][1].y, wv[u][a][1].z, wv[u][a][1].w};
          const uint32_t af[4] = {w0[2 * j], w1[2 * j], w0[2 * j + 1], w1[2 * j + 1]};
#pragma unroll
          for (int b = 0; b < MT; ++b) {
            const uint32_t xw[4] = {xv[b].x, xv[b].y, xv[b].z, xv[b].w};
            kc_mma_m16n8k16_bf16(acc[a][b], af, xw[2 * j], xw[2 * j + 1]);
            if (F == Fault::bf16_sums)
#pragma unroll
              for (int i = 0; i < 4; ++i) acc[a][b][i] = round_bf16(acc[a][b][i]);
          }
        }
    }
#pragma unroll
    for (int u = 0; u < kRun; ++u) {
      if constexpr (kAheadW)
#pragma unroll
        for (int a = 0; a < NT; ++a) wv[u][a][0] = wn[u][a][0], wv[u][a][1] = wn[u][a][1];
      if constexpr (kAheadX)
#pragma unroll
        for (int b = 0; b < MT; ++b) xa[u][b] = xn[u][b];
    }
  }
}

// Blocks walk W tiles (more than one a block) up to 16 x rows; see kc_gemv_bf16.
template <int MT> constexpr bool kWalk = MT < 4;

// Output of accumulator i of tile (a, b) held by `lane`.
__device__ __forceinline__ int out_n(int n0, int a, int lane, int i) { return n0 + a * kRowsW + (lane >> 2) + 8 * (i >> 1); }
__device__ __forceinline__ int out_m(int m0, int b, int lane, int i) { return m0 + b * kRowsX + 2 * (lane & 3) + (i & 1); }

}  // namespace kc::dense_cu

// grid (tiles or fewer, ceil(M / 8 MT)), 256 threads; at most 128 registers a thread, so two
// blocks share an SM (a 4,096-row W is 256 blocks: one wave on 132 SMs). The controls' faults may
// take more, and so may the 32-row forms from sm_100 on, where 128 would spill. Elsewhere only the
// 32-row form of two W tiles spills at 128 (a few words, budgeted by its frame= flag): one block an SM
// was slower.
// Up to 16 x rows a block walks W tiles blockIdx.x, + gridDim.x, ... (the launcher gives every block
// the same number of them): on the H200 that was up to 5% faster at 14,336 rows or columns, and 1-6%
// slower at 4,096 x 4,096 (bench/cuda/dense/h200_results.txt). At 32 rows the walk spills: one tile
// a block.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define KC_GEMV_MIN_BLOCKS(MT, F) ((F) == kc::dense_cu::Fault::none && (MT) < 4 ? 2 : 1)
#else
#define KC_GEMV_MIN_BLOCKS(MT, F) ((F) == kc::dense_cu::Fault::none ? 2 : 1)
#endif
template <int MT, int NT, class Out, kc::dense_cu::Fault F = kc::dense_cu::Fault::none>
__global__ void __launch_bounds__(256, KC_GEMV_MIN_BLOCKS(MT, F))
kc_gemv_bf16(const uint4* __restrict__ x, const uint4* __restrict__ w, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::dense_cu;
  constexpr int R = NT * MT * 4;  // accumulators a lane
  __shared__ float red[kSlices][R][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int m0 = blockIdx.y * kRowsX * MT;
  const int tiles = kWalk<MT> ? (N + kRowsW * NT - 1) / (kRowsW * NT) : 0;
  for (int tile = blockIdx.x;;) {
    const int n0 = tile * kRowsW * NT;
    float acc[NT][MT][4];
    warp_slice<MT, NT, F>(x, w, M, N, K, m0, n0, warp, lane, acc);
#if defined(__CUDACC__)
    if constexpr (F == Fault::early_x) kc_wait_ahead();  // the control's fault: too late for x
#endif
#pragma unroll
    for (int a = 0; a < NT; ++a)
#pragma unroll
      for (int b = 0; b < MT; ++b)
#pragma unroll
        for (int i = 0; i < 4; ++i) red[warp][(a * MT + b) * 4 + i][lane] = acc[a][b][i];
    __syncthreads();
    for (int e = threadIdx.x; e < R * 32; e += 256) {
      const int q = e / 32, ln = e % 32;
      const int a = q / (MT * 4), b = (q / 4) % MT, i = q % 4;
      const int n = out_n(n0, a, ln, i), m = out_m(m0, b, ln, i);
      if (n < N && m < M) {
        float s = red[0][q][ln];
#pragma unroll
        for (int k = 1; k < kSlices; ++k) s += red[k][q][ln];
        kc_store<Out>(y, size_t(m) * N + n, s);
      }
    }
    if (!kWalk<MT>) return;
    tile += gridDim.x;
    if (tile >= tiles) return;
    __syncthreads();  // every thread has read red before the next tile writes it
  }
}

// The split-K form's slices: grid (ceil(N / 16 NT), kSlices, ceil(M / 8 MT)), one warp a block;
// slice blockIdx.y's sums go to ws[slice][m][n].
template <int MT, int NT>
__global__ void __launch_bounds__(32)
kc_gemv_bf16_slices(const uint4* __restrict__ x, const uint4* __restrict__ w, float* __restrict__ ws, int M, int N,
                    int K) {
  using namespace kc::dense_cu;
  const int lane = threadIdx.x;
  const int n0 = blockIdx.x * kRowsW * NT, m0 = blockIdx.z * kRowsX * MT, slice = blockIdx.y;
  float acc[NT][MT][4];
  warp_slice<MT, NT, Fault::none>(x, w, M, N, K, m0, n0, slice, lane, acc);
#pragma unroll
  for (int a = 0; a < NT; ++a)
#pragma unroll
    for (int b = 0; b < MT; ++b)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int n = out_n(n0, a, lane, i), m = out_m(m0, b, lane, i);
        if (n < N && m < M) ws[(size_t(slice) * M + m) * N + n] = acc[a][b][i];
      }
}

// The split-K form's meeting: one thread an output, its `parts` sums (the mma.sync form's 8 slices,
// or the wgmma form's parts) in order (reversed for the control).
template <class Out, kc::dense_cu::Fault F = kc::dense_cu::Fault::none>
__global__ void __launch_bounds__(256)
kc_gemv_bf16_meet(const float* __restrict__ ws, Out* __restrict__ y, int MN, int parts) {
  using namespace kc::dense_cu;
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= MN) return;
  float s;
  if (F == Fault::reversed_meet) {
    s = ws[size_t(parts - 1) * MN + o];
    for (int k = parts - 2; k >= 0; --k) s += ws[size_t(k) * MN + o];
  } else {
    s = ws[o];
    for (int k = 1; k < parts; ++k) s += ws[size_t(k) * MN + o];
  }
  kc_store<Out>(y, o, s);
}

namespace kc::dense_cu {

// Does this process run the wgmma form (an sm_90 device, the sm_90a image loaded)? Never under HIP.
// These and the launchers below are static: they reach the wgmma form's host side, which is each
// translation unit's own (gemv_sm90a.cuh).
static inline bool gemv_wgmma() {
#if defined(__CUDACC__)
  return kc::gemv90::use();
#else
  return false;
#endif
}
// The depth of the form launch_gemv (and the split-K form) takes at a shape on this device.
template <class Out> static inline double gemv_depth_at(long M, long N, long K) {
#if defined(__CUDACC__)
  if (gemv_wgmma()) return kc::gemv90::depth(K, kc::gemv90::form<Out>(int(M), int(N), int(K)).parts);
#endif
  (void)M, (void)N;
  return gemv_depth(K);
}
// Opts in this translation unit's wgmma kernels where it runs them (an entry is built before gate 5
// checks each launch's dynamic shared bytes on the device).
template <class Out> static inline void gemv_prepare() {
#if defined(__CUDACC__)
  if (gemv_wgmma()) (void)kc::gemv90::prepare_all<Out>();
#endif
}
// The grid of blocks of NT W tiles: where they walk (kWalk), every block the same number of tiles
// (the last perhaps one fewer), as many blocks as the device holds at once or fewer (a block a tile
// where that is not known); a block a tile otherwise.
template <int MT, int NT, class Out, Fault F>
inline void launch_gemv_mt(const uint4* x, const uint4* w, Out* y, int M, int N, int K, cudaStream_t st) {
  const int tiles = (N + kRowsW * NT - 1) / (kRowsW * NT), ty = (M + kRowsX * MT - 1) / (kRowsX * MT);
  int bx = tiles;
  if constexpr (kWalk<MT>) {
    static const int most = kc_resident_blocks(reinterpret_cast<const void*>(kc_gemv_bf16<MT, NT, Out, F>), 256);
    const int per = most / ty;
    if (per > 0 && tiles > per) {
      const int rounds = (tiles + per - 1) / per;
      bx = (tiles + rounds - 1) / rounds;
    }
  }
#if defined(__CUDACC__)
  if constexpr (F == Fault::early_x) {
    (void)kc_launch_chained(kc_gemv_bf16<MT, NT, Out, F>, dim3(bx, ty), dim3(256), 0, st, x, w, y, M, N, K);
    return;
  }
#endif
  kc_gemv_bf16<MT, NT, Out, F><<<dim3(bx, ty), 256, 0, st>>>(x, w, y, M, N, K);
}

// 17-32 rows: blocks of two W tiles (32 rows) where they fill the device at least once, so each x
// piece a warp loads feeds both tiles' mma steps (half the x loads a W byte: 50.0 -> 44.3 us at
// 14,336 x 4,096 on the H200); one tile a block otherwise, for blocks enough to cover the SMs (two
// tiles lost there: 40.9 -> 53.2 us at 4,096 x 14,336). The controls keep one tile.
// tests/cuda/gemv_tiles_test.cu holds the two forms to the same bits at ragged N and K.
// The form launch_gemv takes at M rows and N columns on this device (the contract's gate 3 runs
// each form it can take: kernels/dense/gemv/cuda.cpp).
template <class Out, Fault F = Fault::none> inline GemvShape gemv_form(int M, int N) {
  GemvShape g = gemv_shape(M);
  if constexpr (F == Fault::none)
    if (g.mt == 4) {
      static const int most = kc_resident_blocks(reinterpret_cast<const void*>(kc_gemv_bf16<4, 2, Out, F>), 256);
      const int pairs = (N + 2 * kRowsW - 1) / (2 * kRowsW), ty = (M + kRowsX * 4 - 1) / (kRowsX * 4);
      if (most > 0 && pairs * ty >= most) g.nt = 2;
    }
  return g;
}

template <class Out, Fault F = Fault::none>
static inline void launch_gemv(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
#if defined(__CUDACC__)
  if constexpr (F == Fault::none)
    if (gemv_wgmma()) return kc::gemv90::launch<Out>(x, w, y, M, N, K, st);
#endif
  const GemvShape g = gemv_form<Out, F>(M, N);
  auto xx = static_cast<const uint4*>(x);
  auto ww = static_cast<const uint4*>(w);
  if (g.mt == 1) launch_gemv_mt<1, 1, Out, F>(xx, ww, y, M, N, K, st);
  else if (g.mt == 2) launch_gemv_mt<2, 1, Out, F>(xx, ww, y, M, N, K, st);
  else if (F == Fault::none && g.nt == 2) launch_gemv_mt<4, 2, Out, Fault::none>(xx, ww, y, M, N, K, st);
  else launch_gemv_mt<4, 1, Out, F>(xx, ww, y, M, N, K, st);
}

// ws: kSlices * M * N floats (the wgmma form's parts are at most as many).
template <class Out, Fault F = Fault::none>
static inline void launch_gemv_splitk(const void* x, const void* w, float* ws, Out* y, int M, int N, int K, cudaStream_t st) {
  const int MN = M * N;
#if defined(__CUDACC__)
  static_assert(kc::gemv90::kMaxParts <= kSlices, "the wgmma form's parts meet in the same workspace");
  if (gemv_wgmma()) {
    const int parts = kc::gemv90::launch_parts<Out>(x, w, ws, M, N, K, st);
    kc_gemv_bf16_meet<Out, F><<<(MN + 255) / 256, 256, 0, st>>>(ws, y, MN, parts);
    return;
  }
#endif
  const GemvShape g = gemv_shape(M);
  const dim3 grid((N + kRowsW * g.nt - 1) / (kRowsW * g.nt), kSlices, (M + kRowsX * g.mt - 1) / (kRowsX * g.mt));
  auto xx = static_cast<const uint4*>(x);
  auto ww = static_cast<const uint4*>(w);
  if (g.mt == 1) kc_gemv_bf16_slices<1, 1><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  else if (g.mt == 2) kc_gemv_bf16_slices<2, 1><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  else kc_gemv_bf16_slices<4, 1><<<grid, 32, 0, st>>>(xx, ww, ws, M, N, K);
  kc_gemv_bf16_meet<Out, F><<<(MN + 255) / 256, 256, 0, st>>>(ws, y, MN, kSlices);
}

// This unit's table (GemvUnit): the unit that defines gemv_unit, gemv_splitk_unit or a control's
// returns it.
namespace {
template <class Out> const GemvUnit<Out>& this_gemv_unit() {
  static const GemvUnit<Out> u = {
      [] { return gemv_wgmma(); },
      [] { gemv_prepare<Out>(); },
      [](long M, long N, long K) { return gemv_depth_at<Out>(M, N, K); },
      [](int M, int N) { return gemv_form<Out>(M, N); },
      [](int M, int N, int K) {
#if defined(__CUDACC__)
        const kc::gemv90::Form f = kc::gemv90::form<Out>(M, N, K);
        return GemvWgmmaForm{f.nx, f.parts};
#else
        (void)M, (void)N, (void)K;
        return GemvWgmmaForm{0, 0};
#endif
      },
      [](const void* x, const void* w, Out* y, int M, int N, int K, void* stream) {
        launch_gemv<Out>(x, w, y, M, N, K, static_cast<cudaStream_t>(stream));
      }};
  return u;
}
}  // namespace

}  // namespace kc::dense_cu
#endif
