// Host glue the prompt contracts share (cuda.cpp and controls/cuda/attention/cuda.cpp): the
// kernel's arguments from the family's geometry, and the depths the contracts state. Host code
// alone, for the registrations.
#pragma once
#include "../../common/cuda_contract.hpp"
#include "../cuda_depth.cuh"
#include "kc/families/attention.hpp"
#include "prompt.cuh"

namespace kc::attn_cu {

inline PromptArgs prompt_args(const kc::Buffers& b, kc::attention::Cache cache, int64_t page) {
  kc::cu::need_aligned16(b, {"q", "k", "v", "out"});
  const kc::attention::Geometry g = kc::attention::geometry(cache, b.shape(), page);
  PromptArgs a{};
  a.q = reinterpret_cast<const uint16_t*>(b.ptr("q")), a.k = reinterpret_cast<const uint16_t*>(b.ptr("k"));
  a.v = reinterpret_cast<const uint16_t*>(b.ptr("v"));
  a.lens = static_cast<const int32_t*>(b.ptr("lens")), a.pos = static_cast<const int32_t*>(b.ptr("pos"));
  a.table = cache == kc::attention::Cache::paged ? static_cast<const int32_t*>(b.ptr("page_table")) : nullptr;
  a.out = static_cast<uint16_t*>(b.ptr("out")), a.lse = static_cast<float*>(b.ptr("lse"));
  a.cache = cache == kc::attention::Cache::paged ? kPaged : kLinear;
  a.seqs = int(g.seqs), a.rows = int(g.rows), a.kv_heads = int(g.kv_heads), a.group = int(g.group);
  a.window = int(g.window), a.slots = int(g.slots), a.max_pages = int(g.max_pages), a.sc = g.scale;
  return a;
}

inline constexpr const char* kWgmma = "wgmma.m64n8k16.bf16";  // the measured rule of every wgmma form

// A row's longest key-sum chain over `span` keys in tiles of t (a score's is tc_depth of the
// instruction over d): o is P V on the tensor cores over its keys (tc_depth of `instr`) plus a
// rescale a tile (span / t + 2 tiles at most); l, on the CUDA cores, adds a tile's t / 4 p a thread
// and 2 shuffles, then a rescale and an add a tile; + 1 for the product's rounding. (The CUDA-core
// P V of a tile whose V is not finite runs in gate 1 alone, where no range is checked.)
inline double prompt_key_depth(int64_t span, int64_t t, const char* instr = kMma) {
  return kc::cu::tc_depth(instr, long(span)) + double(2 * (span / t + 2) + t / 4 + 3);
}

}  // namespace kc::attn_cu
