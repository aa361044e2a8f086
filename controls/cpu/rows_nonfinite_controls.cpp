// Gate 1's planted control for the rows family on the CPU: red on gate 1 for class_mismatch, green
// on the others.
#include <cmath>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc::rows_cpu;

kc::Entry envelope(kc::Entry&& e) {
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .tile("cols", kTile, 1, 1);
}

// Gate 1: a row maximum by fmaxf, which returns the other operand when one is NaN.
void fmaxf_max(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    y[r] = m;
  }
}

}  // namespace

KC_CONTROL("rows/max/fmaxf", cpu) {
  return envelope(kc::rows::max(kc::DType::f32, kc::DType::f32))
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(fmaxf_max);
}

