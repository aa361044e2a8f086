// rows/dot/f32 on the CPU: y[r] = x[r, :] . w in fp32, products summed by tiled_sum.
#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
void dot_f32(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  const float* w = b.in<float>("w");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r)
    y[r] = kc::rows_cpu::tiled_sum(cols, [&](int64_t c) { return x[r * cols + c] * w[c]; });
}
}  // namespace

KC_KERNEL("rows/dot/f32", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::dot(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s, 1); })  // + the product's rounding
      .launch(dot_f32);
}
