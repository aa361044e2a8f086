// rows/softmax/bf16_out on the CPU: bf16 in, max and exp in fp32, the sum by tiled_sum, y = e / S
// rounded to bf16.
#include <cmath>
#include <vector>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
void softmax_bf16(const kc::Buffers& b) {
  using namespace kc::rows_cpu;
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  kc::bf16* y = b.out<kc::bf16>("y");
  std::vector<float> e(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const kc::bf16* xr = x + r * cols;
    float m = -INFINITY;
    bool nan = false;  // a NaN makes the row NaN (v > m is false for it, so it is tested apart)
    for (int64_t c = 0; c < cols; ++c) {
      float v = load(xr, c);
      if (std::isnan(v)) nan = true;
      else if (v > m) m = v;
    }
    if (nan) m = NAN;
    for (int64_t c = 0; c < cols; ++c) e[size_t(c)] = std::exp(load(xr, c) - m);
    float s = tiled_sum(cols, [&](int64_t c) { return e[size_t(c)]; });
    for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, e[size_t(c)] / s);
  }
}
}  // namespace

KC_KERNEL("rows/softmax/bf16_out", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      // After the sum, one division. Before it, x - max rounds (|x - max| < 16 here, so exp's
      // argument moves by up to 16 u), and expf's error enters both e and S: counted as 16 more ops
      // and expf's ulp twice.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s); }, 1 + 16)
      .ulp("expf", 1)
      .ulp("expf (in the sum)", 1)
      .hidden("a bf16 output of at most 1024 terms in [0, 1] hides a half-precision sum's error")
      .launch(softmax_bf16);
}
