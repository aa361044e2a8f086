// rows/max/f32 on the CPU: 16 lanes of maxima a tile; a NaN anywhere makes the row NaN, as float64's
// formula says (a plain max or fmaxf would drop it: see controls/cpu/rows_nonfinite_controls.cpp).
#include <cmath>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
// a if it is NaN or larger, else b (NaN when b is).
float nan_max(float a, float b) { return (std::isnan(a) || a > b) ? a : b; }

void max_f32(const kc::Buffers& b) {
  using namespace kc::rows_cpu;
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    float lane[kLanes];
    for (auto& l : lane) l = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) lane[c % kLanes] = nan_max(lane[c % kLanes], x[r * cols + c]);
    for (int h = kLanes / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] = nan_max(lane[l], lane[l + h]);
    y[r] = lane[0];
  }
}
}  // namespace

KC_KERNEL("rows/max/f32", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::max(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .launch(max_f32);
}
