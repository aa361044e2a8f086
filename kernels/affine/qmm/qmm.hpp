// The affine prompt projection's host side its registration (cuda.cpp) needs beside the tiles of
// qmm.cuh and qmm_sm90a.cuh: the depths its entries state. Apart from those headers so that the
// device units parse no harness header.
#pragma once
#include <algorithm>

#include "../../common/tc_depth.cuh"
#include "qmm.cuh"
#include "qmm_sm90a.cuh"

namespace kc::qmm_cu {
// The mma.sync tiles. Depth: a step's 32 products in two chained mma k16 from zero (tc_depth.cuh: the
// measured rule's bound, or three roundings a term where unmeasured), b * (sum x) and the fused
// s * t, then the chain of steps over K (sum x's own chain of 32 is shorter than the unmeasured count;
// the measured bf16 bound of 32 products, 21, is below it, so it is counted: 32 - 1 adds).
inline double qmm_depth(long K) {
  return std::max(kc::cu::tc_depth("mma.m16n8k16.bf16", kBK), double(kBK - 1)) + 2 + double(K / kBK);
}
}  // namespace kc::qmm_cu

namespace kc::qmm90 {
// The wgmma tiles (both forms). Depth: a group's G products in one wgmma accumulator from zero
// (tc_depth.cuh), or the sum of x over the group (a chain of 32 and G / 32 - 1 adds) where that is
// longer, then two fused steps a group along y's chain (y = s t + (b (sum x) + y)), and the last
// fused multiply.
inline double qmm_depth(long K, int group) {
  const double xsum = 32.0 + group / 32 - 1;
  return std::max(kc::cu::tc_depth("wgmma.m64n8k16.bf16", group), xsum) + 2.0 * double(K / group) + 1;
}
}  // namespace kc::qmm90
