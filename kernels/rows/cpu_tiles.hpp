// What the rows family's CPU kernels share: an fp32 sum over tiles of 256 columns, 16 lanes a tile
// (lane l takes columns l, l+16, ... of the tile), the lanes met by halves, the tiles added in a
// chain. Its depth is therefore a true function of cols, and a ragged last tile is its own case.
#pragma once
#include <algorithm>
#include <cstdint>

#include "kc/numeric.hpp"
#include "kc/types.hpp"

namespace kc::rows_cpu {

inline constexpr int64_t kTile = 256;
inline constexpr int kLanes = 16;

// The longest chain of roundings in tiled_sum over n terms: a lane's chain in the widest tile, the
// four levels where lanes meet, and the chain over tiles.
inline double tiled_depth(int64_t n) {
  int64_t widest = std::min(n, kTile);
  return double((widest + kLanes - 1) / kLanes + 4 + (n + kTile - 1) / kTile);
}
// Depth for a gate's shape: "cols" summed, plus `extra` roundings of each term (1 for a product).
inline double depth_of(const Shape& s, int extra = 0) { return tiled_depth(s["cols"]) + extra; }

// Sum of term(c) for c in [0, n) in fp32. drop_ragged_last (a planted control) stops a ragged tile one
// column short when true.
template <class Term> float tiled_sum(int64_t n, Term term, bool drop_ragged_last = false) {
  float total = 0;
  for (int64_t t0 = 0; t0 < n; t0 += kTile) {
    int64_t t1 = std::min(n, t0 + kTile);
    if (drop_ragged_last && t1 - t0 < kTile) --t1;
    float lane[kLanes] = {};
    for (int64_t c = t0; c < t1; ++c) lane[(c - t0) % kLanes] += term(c);
    for (int h = kLanes / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] += lane[l + h];
    total += lane[0];
  }
  return total;
}

// Element loads and stores for the types the rows kernels take.
inline float load(const float* p, int64_t i) { return p[i]; }
inline float load(const bf16* p, int64_t i) { return from_bf16(p[i]); }
inline float load(const f16* p, int64_t i) { return from_f16(p[i]); }
inline void store(float* p, int64_t i, float v) { p[i] = v; }
inline void store(bf16* p, int64_t i, float v) { p[i] = to_bf16(v); }
inline void store(f16* p, int64_t i, float v) { p[i] = to_f16(v); }
// Round a float to bf16 and back (an op-by-op kernel's rounding point).
inline float bf(float v) { return from_bf16(to_bf16(v)); }

// The served envelope every rows CPU kernel shares (CPU time is short in CI): rows {1, 3, 64},
// cols {64, 256, 1024} over tiles of 256 columns; any column count from 1 works.
inline constexpr int64_t kRows[] = {1, 3, 64};
inline constexpr int64_t kCols[] = {64, 256, 1024};

}  // namespace kc::rows_cpu
