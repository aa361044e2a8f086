// The CPU block-scaled entries' envelope and accumulation, shared by the GEMV, the GEMM and the
// controls: K at the format's step (16 bytes of FP8; an FP4 scale block) from 128 to 1024, past a
// 128-row block of n, and a ragged last K block for the 128 x 128 form.
#pragma once
#include "bs_cpu.hpp"
#include "kc/families/blockscaled.hpp"

namespace kc::bs_cpu {

inline std::vector<int64_t> served_k(Weights w) {
  if (w == Weights::mxfp4) return {128, 352, 1024};
  return {128, 272, 1024};  // 272: two 128-blocks and a 16-column tail; a multiple of NVFP4's 16
}

inline Entry gemv_entry(Form f, DType out) {
  return blockscaled::projection(f.w, f.a, out)
      .served({{"m", {1, 5, 32}}, {"n", {16, 130}}, {"k", served_k(f.w)}})
      .invariant("m")  // one output at a time, in one order, whatever m
      .range("k", blockscaled::k_step(f.w), blockscaled::k_step(f.w))
      .sums(DType::f32, [f](const Shape& s) { return gemv_depth(f, s); }, post_ops(f));
}

inline Entry gemm_entry(Form f, DType out) {
  return blockscaled::projection(f.w, f.a, out)
      .served({{"m", {4, 37}}, {"n", {16, 130}}, {"k", served_k(f.w)}})
      .invariant("m")  // a tile's outputs each in their own lanes: a row's sums whatever its tile
      .tile("m", kTileM, 1, 1)
      .tile("n", kTileN, 1, 1)
      .range("k", blockscaled::k_step(f.w), blockscaled::k_step(f.w))
      .sums(DType::f32, [f](const Shape& s) { return gemm_depth(f, s); }, post_ops(f));
}

}  // namespace kc::bs_cpu
