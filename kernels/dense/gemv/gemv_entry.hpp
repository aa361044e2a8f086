// The decode projection's entry as dense/gemv and its split-K replacement both declare it: the
// envelope, and the tiles, depth and launches' opt-in of the form this process runs (gemv.cuh).
#pragma once
#include "gemv.cuh"
#include "kc/families/dense.hpp"

namespace kc::dense_cu {

// Decode rows 1..32 (one block holds them all: m's tile is 8 x rows, an mma's or a wgmma's N step);
// K and N from 64 to 16,384 (the envelope); k in steps of 8 for 16-byte loads.
// Static: it opts in this translation unit's own wgmma kernels (gemv_prepare). With external linkage
// the linker kept one unit's copy for both contracts, and the other's kernels went to gate 5 not
// opted in (the H200 run of c3caea7: dense/gemv_splitk/bf16's wgmma parts at 49,152 bytes).
template <class Out> static kc::Entry gemv_projection(kc::DType out) {
  gemv_prepare<Out>();
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {64, 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", gemv_tile_n(), 1, 1)
      .tile("k", gemv_tile_k(), 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth_at<Out>(s["m"], s["n"], s["k"]); })
      .note(gemv_wgmma() ? "wgmma form (sm_90a image)" : "mma.sync form");
}

}  // namespace kc::dense_cu
