// The CPU layer norm, shared by rows/layer_norm/{f32,bf16} and their gate 3 control: two passes in
// fp32 (the mean by tiled_sum, then the sum of (x - mean)^2 by tiled_sum), rstd = 1 / sqrtf(var +
// eps), y = (x - mean) * rstd * w + b. one_pass (the control): var = E[x^2] - mean^2 from one pass,
// clamped at 0 (a NaN kept, as a row of -Inf gives one).
#pragma once
#include <cmath>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"

namespace kc::rows_cpu {

inline constexpr float kLayerNormEps = 1e-5f;
// After the sums, up to (x - mean) * rstd * w: / cols, + eps, sqrtf, 1 / ., * rstd, * w: six
// correctly rounded fp32 operations. The formula counts each of them in the bound itself; the
// spec's count is added on top all the same (six fp32 units of slack) and sizes gate 4's fill (how
// far each replay must miss).
inline constexpr int kLayerNormOps = 6;

template <class In, class Out, bool one_pass = false> void layer_norm(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const In* x = b.in<In>("x");
  const In* w = b.in<In>("w");
  const In* bias = b.in<In>("b");
  Out* y = b.out<Out>("y");
  float* mean = b.out<float>("mean");
  float* rstd = b.out<float>("rstd");
  for (int64_t r = 0; r < rows; ++r) {
    const In* xr = x + r * cols;
    const float mu = tiled_sum(cols, [&](int64_t c) { return load(xr, c); }) / float(cols);
    float var;
    if constexpr (one_pass) {
      var = tiled_sum(cols, [&](int64_t c) { return load(xr, c) * load(xr, c); }) / float(cols) - mu * mu;
      var = var < 0 ? 0.0f : var;
    } else {
      var = tiled_sum(cols, [&](int64_t c) {
              const float d = load(xr, c) - mu;
              return d * d;
            }) / float(cols);
    }
    const float rs = 1.0f / std::sqrt(var + kLayerNormEps);
    for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, (load(xr, c) - mu) * rs * load(w, c) + load(bias, c));
    mean[r] = mu;
    rstd[r] = rs;
  }
}

// The envelope every CPU layer norm shares (cpu_tiles.hpp's), with its sums: the tiled chain plus
// the square's rounding.
inline kc::Entry layer_norm_envelope(kc::Entry&& e) {
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s, 1); }, kLayerNormOps);
}

}  // namespace kc::rows_cpu
