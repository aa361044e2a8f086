// rows/argmax/f32 on the CPU: the lowest id of the row's maximum; a row holding a NaN gives -1.
#include <cmath>
#include <cstdint>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
void argmax_f32(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  int32_t* id = b.out<int32_t>("id");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    int32_t best = 0;
    for (int64_t c = 0; c < cols; ++c) {
      if (std::isnan(xr[c])) {
        best = -1;
        break;
      }
      if (xr[c] > xr[best]) best = int32_t(c);  // strictly greater: a tie keeps the lower id
    }
    id[r] = best;
  }
}
}  // namespace

KC_KERNEL("rows/argmax/f32", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::argmax(kc::DType::f32)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .launch(argmax_f32);
}
