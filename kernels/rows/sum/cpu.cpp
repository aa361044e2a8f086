// rows/sum/f32 on the CPU: fp32 sums over tiles of 256 columns in 16 lanes.
#include "../cpu_tiles.hpp"
#include "cpu_sum.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace kc::rows_cpu {

void sum_f32(const Buffers& b, bool drop_ragged_last) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r)
    y[r] = tiled_sum(cols, [&](int64_t c) { return x[r * cols + c]; }, drop_ragged_last);
}

Entry sum_f32_entry() {
  return rows::sum(DType::f32, DType::f32)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .sums(DType::f32, [](const Shape& s) { return depth_of(s); });
}

}  // namespace kc::rows_cpu

KC_KERNEL("rows/sum/f32", cpu) {
  return kc::rows_cpu::sum_f32_entry().launch([](const kc::Buffers& b) { kc::rows_cpu::sum_f32(b); });
}
