// rows/add_rms_norm/{rounded,once_rounded} on the CPU: h = bf16(x + r) is written; the norm reads h
// (rounded, as MLX's op-by-op rows do) or the fp32 sum x + r (once-rounded); its sum of squares by
// tiled_sum, then y = bf16(v * (1 / sqrtf(S / cols + eps)) * w).
#include <cmath>
#include <vector>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
constexpr float kEps = 1e-6f;
using kc::rows::Residual;

template <Residual form> void add_rms_norm(const kc::Buffers& b) {
  using namespace kc::rows_cpu;
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  const kc::bf16* r = b.in<kc::bf16>("r");
  const kc::bf16* w = b.in<kc::bf16>("w");
  kc::bf16* h = b.out<kc::bf16>("h");
  kc::bf16* y = b.out<kc::bf16>("y");
  std::vector<float> v(static_cast<size_t>(cols));
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t o = row * cols;
    for (int64_t c = 0; c < cols; ++c) {
      float s = load(x, o + c) + load(r, o + c);
      h[o + c] = kc::to_bf16(s);
      v[size_t(c)] = form == Residual::rounded ? kc::from_bf16(h[o + c]) : s;
    }
    float ss = tiled_sum(cols, [&](int64_t c) { return v[size_t(c)] * v[size_t(c)]; });
    float inv = 1.0f / std::sqrt(ss / float(cols) + kEps);
    for (int64_t c = 0; c < cols; ++c) store(y, o + c, v[size_t(c)] * inv * load(w, c));
  }
}

kc::Entry envelope(kc::Entry&& e) {
  using namespace kc::rows_cpu;
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      // After the sum: / cols, + eps, sqrtf, 1 / ., v * inv, * w.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s, 1); }, 6)
      .hidden("y is bf16 and moves by half its sum of squares' relative error: a bf16 sum in 32 lanes "
              "stays inside y's rounding (fp16 overflows and is shown)");
}
}  // namespace

KC_KERNEL("rows/add_rms_norm/rounded", cpu) {
  return envelope(kc::rows::add_rms_norm(Residual::rounded, kEps)).launch(add_rms_norm<Residual::rounded>);
}

KC_KERNEL("rows/add_rms_norm/once_rounded", cpu) {
  return envelope(kc::rows::add_rms_norm(Residual::once_rounded, kEps)).launch(add_rms_norm<Residual::once_rounded>);
}
