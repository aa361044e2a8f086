// Gate 3's corner control for the dense family on the CPU: a GEMV in tiles of 8 outputs x 64 K
// columns whose K tail is summed only by the full-tile path. The edge path (the last, partial tile
// of outputs) loops over whole K tiles alone, so it is wrong only where N and K are both ragged:
// the corner shape, never one dim ragged at a time.
#include <algorithm>

#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"

namespace {
constexpr int64_t kTileN = 8, kTileK = 64;

void corner_drop_gemv(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  const int64_t M = s["m"], N = s["n"], K = s["k"], whole = K / kTileK * kTileK;
  const kc::bf16* x = b.in<kc::bf16>("x");
  const kc::bf16* w = b.in<kc::bf16>("w");
  float* y = b.out<float>("y");
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n0 = 0; n0 < N; n0 += kTileN) {
      const int64_t tn = std::min(kTileN, N - n0);
      for (int64_t n = n0; n < n0 + tn; ++n) {
        const kc::bf16* xr = x + m * K;
        const kc::bf16* wr = w + n * K;
        float acc = 0;  // one fp32 chain over K: a bf16 x bf16 product is exact in fp32
        for (int64_t k = 0; k < whole; ++k) acc += kc::from_bf16(xr[k]) * kc::from_bf16(wr[k]);
        if (tn == kTileN)  // the planted fault: the K tail on the full-tile path only
          for (int64_t k = whole; k < K; ++k) acc += kc::from_bf16(xr[k]) * kc::from_bf16(wr[k]);
        y[m * N + n] = acc;
      }
    }
}
}  // namespace

// Served at whole tiles, and at one K (the model's width): gate 4's ragged shape must lie in the
// served ranges, so with K's fixed it has none (gate 4 stays green). Gate 1's tile edges and gate
// 3's one-dim edges each leave the other dim whole; gate 3's corner (n 9, k 65) is red.
KC_CONTROL("dense/ctl_corner_drop/f32", cpu) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 3}}, {"n", {16, 64}}, {"k", {256}}})
      .tile("n", kTileN, 1, 1)
      .tile("k", kTileK, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["k"]); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch(corner_drop_gemv);
}
