// Host glue the CUDA attention contracts share (decode/, split/, merge/ and their controls): the
// launchers' sizes from the family's geometry, buffers as the kernels read them, decode through a
// stream-ordered workspace. Host code alone, for the registrations (cuda.cpp): the kernels are
// reached through the device units' exports (cuda_served.hpp, the controls' headers).
#pragma once
#include <cmath>
#include <exception>
#include <string>

#include "../common/cuda_contract.hpp"
#include "cuda_launch.cuh"
#include "cuda_served.hpp"
#include "kc/families/attention.hpp"

namespace kc::attn_cu {

inline Sizes sizes_of(const kc::attention::Geometry& g) {
  Sizes z;
  z.cache = g.cache == kc::attention::Cache::linear ? kLinear : g.cache == kc::attention::Cache::ring ? kRing : kPaged;
  z.seqs = int(g.seqs), z.rows = int(g.rows), z.kv_heads = int(g.kv_heads), z.group = int(g.group), z.d = int(g.d);
  z.keys = int(g.keys), z.window = int(g.window), z.slots = int(g.slots), z.max_pages = int(g.max_pages);
  z.scale = g.scale;
  return z;
}
inline const uint16_t* u16(const kc::Buffers& b, const char* n) { return reinterpret_cast<const uint16_t*>(b.ptr(n)); }
inline const int32_t* i32(const kc::Buffers& b, const char* n) { return static_cast<const int32_t*>(b.ptr(n)); }
inline float* f32(const kc::Buffers& b, const char* n) { return static_cast<float*>(b.ptr(n)); }

// The served split over every head dim (cuda_served.hpp): each head dim's opt-in, at entry build,
// before the backend checks the launches (without a GPU the launch reports it); its blocks a wave;
// and its partials over a.chunks chunks of a.chunk keys, as launch_split<kNone> makes them. Host
// code: in a device unit this dispatch would instantiate every head dim's split there.
inline void served_prepare() {
  try {
    served_split_prepare<64>();
    served_split_prepare<128>();
    served_split_prepare<256>();
  } catch (const std::exception&) {
  }
}
inline int served_wave(int d) {
  return d == 64 ? served_split_wave<64>() : d == 128 ? served_split_wave<128>() : served_split_wave<256>();
}
inline void served_split(const Args& a, int d, void* stream) {
  check_split_chunks(a);
  switch (d) {
    case 64: served_split_at<64>(a, stream); break;
    case 128: served_split_at<128>(a, stream); break;
    case 256: served_split_at<256>(a, stream); break;
    default: bad_split_dim(d);
  }
}

// Decode as the contract runs it: split and merge through a workspace allocated on the stream.
// split(a, d, stream) and wave(d) are the split kernel's (the served one's, or a control's); stream
// is the harness's, as void*.
template <class Split, class Wave>
void decode_with(const kc::Buffers& b, kc::attention::Cache cache, int64_t page, bool bf16_out, Split split, Wave wave) {
  kc::cu::need_aligned16(b, {"q", "k", "v"});
  const Sizes z = sizes_of(kc::attention::geometry(cache, b.shape(), page));
  const Chunking c = decode_chunking(z, wave(z.d));
  cudaStream_t st = kc::cu::stream_of(b);
  void* ws = nullptr;
  if (cudaMallocAsync(&ws, decode_workspace(z, c), st) != cudaSuccess)
    throw kc::Error("attention decode: cudaMallocAsync of its workspace failed");
  const Args a = decode_args(u16(b, "q"), u16(b, "k"), u16(b, "v"), i32(b, "lens"), i32(b, "pos"),
                             cache == kc::attention::Cache::paged ? i32(b, "page_table") : nullptr, ws, z, c);
  split(a, z.d, st);
  served_merge(decode_merge_args(a, b.ptr("out"), f32(b, "lse"), z), z.d, bf16_out, st);
  cudaFreeAsync(ws, st);
}

// The split's partials over the entry's chunks (absolute: chunk c holds keys [c chunk, (c+1) chunk)).
inline void split_entry(const kc::Buffers& b, kc::attention::Cache cache, int64_t page, int64_t chunk, bool mlo,
                        bool base2) {
  kc::cu::need_aligned16(b, {"q", "k", "v"});
  const kc::attention::Geometry g = kc::attention::geometry(cache, b.shape(), page, chunk);
  Args a{};
  a.q = u16(b, "q"), a.k = u16(b, "k"), a.v = u16(b, "v"), a.lens = i32(b, "lens"), a.pos = i32(b, "pos");
  a.table = cache == kc::attention::Cache::paged ? i32(b, "page_table") : nullptr;
  a.sc = base2 ? float(double(g.scale) * M_LOG2E) : g.scale, a.base2 = base2;
  a.chunk = int(chunk), a.chunks = int(g.chunks), a.absolute = 1, a.lse_form = !mlo;
  a.po = f32(b, "part_o");
  if (mlo) a.pm = f32(b, "part_m"), a.pl = f32(b, "part_l");
  else a.plse = f32(b, "part_lse");
  const Sizes z = sizes_of(g);
  a.cache = z.cache, a.seqs = z.seqs, a.rows = z.rows, a.kv_heads = z.kv_heads, a.group = z.group;
  a.window = z.window, a.slots = z.slots, a.max_pages = z.max_pages;
  served_split(a, z.d, b.stream());
}

// The merge's arguments over (m, l, o) or (lse, o) partials [rows, q_heads, chunks(, d)].
inline MergeArgs merge_args(const kc::Buffers& b, bool mlo, bool zero_rule, bool base2) {
  const kc::Shape& s = b.shape();
  MergeArgs m{};
  m.pm = f32(b, mlo ? "part_m" : "part_lse"), m.pl = mlo ? f32(b, "part_l") : nullptr, m.po = f32(b, "part_o");
  m.out = b.ptr("out"), m.lse = f32(b, "lse");
  m.n = int(s["rows"] * s["q_heads"]), m.chunks = int(s["chunks"]), m.zero_rule = zero_rule, m.base2 = base2;
  kc::cu::need_aligned16(b, {"part_o"});
  return m;
}

}  // namespace kc::attn_cu
