// The decode projection's entry as dense/gemv and its split-K replacement both declare it: the
// envelope, and the tiles, depth and launches' opt-in of the form this process runs (gemv.cuh), each
// asked of the unit that holds the entry's kernels (GemvUnit: gemv.cu, gemv_splitk.cu); and the
// launch names of those forms. Host code, for the registrations (cuda.cpp) alone.
#pragma once
#include <string>
#include <vector>

#include "gemv.cuh"
#include "gemv_sm90a.cuh"
#include "kc/families/dense.hpp"

namespace kc::dense_cu {

// The tiles the entries declare for the form this process runs: mma.sync, an mma's 16 W rows and the
// 1,024 k the 8 slices cover before repeating; wgmma, a block's 64 W rows and a stage's 64 k (parts
// begin and end on them).
inline int gemv_tile_n(bool wgmma) { return wgmma ? 64 : kRowsW; }
inline int gemv_tile_k(bool wgmma) { return wgmma ? 64 : kTileK; }

// Decode rows 1..32 (one block holds them all: m's tile is 8 x rows, an mma's or a wgmma's N step);
// K and N from 64 to 16,384 (the envelope); k in steps of 8 for 16-byte loads. It opts in
// the unit's own wgmma kernels (GemvUnit says why each unit answers for its own).
template <class Out> kc::Entry gemv_projection(kc::DType out, const GemvUnit<Out>& u) {
  u.prepare();
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {64, 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", gemv_tile_n(u.wgmma()), 1, 1)
      .tile("k", gemv_tile_k(u.wgmma()), 8, 8)
      .sums(kc::DType::f32, [depth = u.depth](const kc::Shape& s) { return depth(s["m"], s["n"], s["k"]); })
      .note(u.wgmma() ? "wgmma form (sm_90a image)" : "mma.sync form");
}

// The split-K form's launches that differ by rows (its meeting runs beside each), under an entry's name.
inline std::vector<std::string> gemv_splitk_forms(const std::string& name, bool wgmma) {
  if (wgmma) return {name + "/wgmma_parts_m8", name + "/wgmma_parts_m16", name + "/wgmma_parts_m32"};
  return {name + "/slices_m8", name + "/slices_m16", name + "/slices_m32"};
}
// The wgmma form's launch names under an entry's name, and the one it takes at a shape.
inline std::vector<std::string> gemv_wgmma_launches(const std::string& name) {
  std::vector<std::string> v;
  for (int nx : {8, 16, 32})
    for (int c : {1, 2, 4, 8}) v.push_back(name + "/wgmma_m" + std::to_string(nx) + "_c" + std::to_string(c));
  return v;
}
inline std::string gemv_wgmma_parts_suffix(int M) {  // the split-K form's, by rows
  return "/wgmma_parts_m" + std::to_string(kc::gemv90::nx_of(M));
}
inline std::string gemv_wgmma_suffix(GemvWgmmaForm f) {
  return "/wgmma_m" + std::to_string(f.nx) + "_c" + std::to_string(f.parts);
}

}  // namespace kc::dense_cu
