// The depths the CUDA attention contracts state (decode/, split/ and their controls): dots and
// P V on mma.sync m16n8k16 bf16, one fp32 accumulator a row over its keys, bound by the rule
// tools/tc-probe measured on this device, or three roundings a term where unmeasured
// (kernels/common/tc_depth.cuh).
#pragma once
#include <cstdint>

#include "../common/tc_depth.cuh"
#include "kc/spec.hpp"

namespace kc::attn_cu {

inline constexpr const char* kMma = "mma.m16n8k16.bf16";

// A score: q . k over d on the tensor cores (then times the scale: Steps::score_ops).
inline double score_depth(const kc::Shape& s) { return kc::cu::tc_depth(kMma, long(s["d"])); }

// A chunk's longest key-sum chain: P V on the tensor cores over its keys, a rescale a tile (32
// keys at the least), and the few keys (16 at most) a tile's edge adds on the CUDA cores.
inline double chunk_key_depth(int64_t span) { return kc::cu::tc_depth(kMma, long(span)) + double(span / 32 + 16); }

// Decode: a chunk's chain, then the merge, a product and an add a chunk (at most span / 128 + 2
// chunks: decode_chunking's least chunk).
inline double decode_key_depth(int64_t span) { return chunk_key_depth(span) + double(2 * (span / 128 + 2)); }

}  // namespace kc::attn_cu
