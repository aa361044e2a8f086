// Host launchers of the CUDA attention kernels (cuda_attention.cuh): the split over fixed chunks, the
// merge, and decode as split then merge through a workspace, its chunks chosen to fill the GPU.
// Callable without the harness (bench/cuda/attention): every size comes in a Geometry-like struct.
//
// Without relocatable device code every unit that instantiates a kernel holds its own copy, so the
// launchers have internal linkage: each unit opts its own copies in to their shared memory. The
// harness's served kernels are instantiated in one unit each (split/split_d*.cu, merge/merge.cu,
// behind cuda_served.hpp); the contracts reach them through that header.
//
// The sizes and chunking above the device guard are plain C++, for the registrations (cuda.cpp); the
// launchers below it exist where nvcc compiles.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda_attention.cuh"

namespace kc::attn_cu {

// The sizes a launch needs (attention.hpp's Geometry, in ints).
struct Sizes {
  int cache = kLinear, seqs = 1, rows = 1, kv_heads = 1, group = 1, d = 128, keys = 1, window = 0;
  int slots = 0, max_pages = 0;
  float scale = 1;
};
inline int q_heads(const Sizes& z) { return z.kv_heads * z.group; }
inline long row_heads(const Sizes& z) { return long(z.seqs) * z.rows * q_heads(z); }

// Decode's chunking: about two waves of split blocks (`wave`: the blocks a wave holds, from the
// kernel's occupancy), never more, so the last wave is nearly full; chunks of at least 128 keys (a
// partial costs d floats against a chunk's 4 d bytes of K and V a key), covering every row's span.
struct Chunking {
  int chunk, chunks;
};
inline Chunking decode_chunking(const Sizes& z, int wave) {
  // The most keys a block's rows span, from a tile boundary (one more for a fault's extra key).
  const long span = (z.window > 0 ? std::min<long>(z.keys, long(z.window) + z.rows) : z.keys) + 1 + 64;
  const long units = long(z.seqs) * z.kv_heads * ((z.rows * z.group + kRows - 1) / kRows);
  const long want = std::max<long>(1, 2L * wave / units);
  long chunk = (span + want - 1) / want;
  chunk = std::max<long>(128, (chunk + 63) / 64 * 64);
  return {int(chunk), int((span + chunk - 1) / chunk)};
}
// Workspace bytes of decode: part_m, part_l and part_o of every row over its chunks.
inline size_t decode_workspace(const Sizes& z, const Chunking& c) {
  return size_t(row_heads(z)) * size_t(c.chunks) * size_t(z.d + 2) * sizeof(float);
}
// The split's arguments for decode: (m, l, o) partials over `c` in the workspace `ws`.
inline Args decode_args(const uint16_t* q, const uint16_t* k, const uint16_t* v, const int32_t* lens,
                        const int32_t* pos, const int32_t* table, void* ws, const Sizes& z, const Chunking& c) {
  const size_t n = size_t(row_heads(z)) * size_t(c.chunks);
  float* f = static_cast<float*>(ws);
  Args a{};
  a.q = q, a.k = k, a.v = v, a.lens = lens, a.pos = pos, a.table = table;
  a.sc = z.scale, a.base2 = 0, a.chunk = c.chunk, a.chunks = c.chunks, a.absolute = 0, a.lse_form = 0;
  a.po = f, a.pm = f + n * size_t(z.d), a.pl = a.pm + n;
  a.cache = z.cache, a.seqs = z.seqs, a.rows = z.rows, a.kv_heads = z.kv_heads, a.group = z.group;
  a.window = z.window, a.slots = z.slots, a.max_pages = z.max_pages;
  return a;
}
inline MergeArgs decode_merge_args(const Args& a, void* out, float* lse, const Sizes& z) {
  return MergeArgs{a.pm, a.pl, a.po, out, lse, int(row_heads(z)), a.chunks, 0, 0};
}

// What the split refuses ahead of its launch: chunks off its 64-key tiles, a head dim it has no kernel for.
inline void check_split_chunks(const Args& a) {
  if (a.chunk < 64 || a.chunk % 64) throw std::runtime_error("attention split: a chunk is a multiple of 64 keys");
  if (a.chunks < 1) throw std::runtime_error("attention split: no chunk");
}
[[noreturn]] inline void bad_split_dim(int d) {
  throw std::runtime_error("attention split: head dim " + std::to_string(d) + " is not 64, 128 or 256");
}

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_runtime.h>

namespace kc::attn_cu {

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Internal linkage (static): this unit's kernel copies (above).

// Opts this unit's split kernel in to its dynamic shared memory (past 48 KiB), once.
template <int D, int F> static void prepare_split() {
  static const cudaError_t e = cudaFuncSetAttribute(kc_attn_split<D, F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     Tile<D>::kSmem);
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("attention split: cannot opt in to ") + std::to_string(Tile<D>::kSmem) +
                             " bytes of dynamic shared memory: " + cudaGetErrorString(e));
}
// Split blocks a wave holds on this device.
template <int D, int F> static int wave_blocks() {
  static const int n = [] {
    int dev = 0, sms = 0, per = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    prepare_split<D, F>();
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kc_attn_split<D, F>, kThreads, Tile<D>::kSmem);
    return std::max(1, sms) * std::max(1, per);
  }();
  return n;
}
template <int F> static int wave_of(int d) {
  return d == 64 ? wave_blocks<64, F>() : d == 128 ? wave_blocks<128, F>() : wave_blocks<256, F>();
}

template <int D, int F> static void launch_split_one(const Args& a, cudaStream_t st) {
  prepare_split<D, F>();
  const dim3 grid(unsigned(a.chunks), unsigned(a.seqs * a.kv_heads), unsigned((a.rows * a.group + kRows - 1) / kRows));
  kc_attn_split<D, F><<<grid, kThreads, Tile<D>::kSmem, st>>>(a);
}
// Partials of every row over a.chunks chunks of a.chunk keys (a multiple of 64); a's sizes set.
template <int F = kNone> static void launch_split(const Args& a, int d, cudaStream_t st) {
  check_split_chunks(a);
  switch (d) {
    case 64: launch_split_one<64, F>(a, st); break;
    case 128: launch_split_one<128, F>(a, st); break;
    case 256: launch_split_one<256, F>(a, st); break;
    default: bad_split_dim(d);
  }
  check_launch("attention split");
}

template <class O, bool Drop = false> static void launch_merge(const MergeArgs& a, int d, cudaStream_t st) {
  const unsigned grid = unsigned((a.n + kWarps - 1) / kWarps);
  switch (d) {
    case 64: kc_attn_merge<64, O, Drop><<<grid, kThreads, 0, st>>>(a); break;
    case 128: kc_attn_merge<128, O, Drop><<<grid, kThreads, 0, st>>>(a); break;
    case 256: kc_attn_merge<256, O, Drop><<<grid, kThreads, 0, st>>>(a); break;
    default: throw std::runtime_error("attention merge: head dim " + std::to_string(d) + " is not 64, 128 or 256");
  }
  check_launch("attention merge");
}

// Decode with this unit's copies: split into (m, l, o) partials in `ws` (decode_workspace bytes for
// decode_chunking(z, wave_of<F>(z.d))), then merge into out (O: float, or uint16_t for bf16) and
// lse, natural units, float64's classes for empty rows.
template <class O, int F = kNone>
static void launch_decode(const uint16_t* q, const uint16_t* k, const uint16_t* v, const int32_t* lens, const int32_t* pos,
                   const int32_t* table, O* out, float* lse, void* ws, const Sizes& z, cudaStream_t st) {
  const Args a = decode_args(q, k, v, lens, pos, table, ws, z, decode_chunking(z, wave_of<F>(z.d)));
  launch_split<F>(a, z.d, st);
  launch_merge<O>(decode_merge_args(a, out, lse, z), z.d, st);
}

}  // namespace kc::attn_cu
#endif
