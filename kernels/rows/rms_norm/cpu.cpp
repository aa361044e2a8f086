// rows/rms_norm/{f32_out,bf16_out,f16_out} on the CPU: the sum of squares by tiled_sum, then
// y = x * (1 / sqrtf(S / cols + eps)) * w in fp32, stored in the output type.
#include <cmath>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
constexpr float kEps = 1e-6f;

template <class In, class Out> void rms_norm(const kc::Buffers& b) {
  using namespace kc::rows_cpu;
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const In* x = b.in<In>("x");
  const In* w = b.in<In>("w");
  Out* y = b.out<Out>("y");
  for (int64_t r = 0; r < rows; ++r) {
    const In* xr = x + r * cols;
    float s = tiled_sum(cols, [&](int64_t c) {
      float v = load(xr, c);
      return v * v;
    });
    float inv = 1.0f / std::sqrt(s / float(cols) + kEps);
    for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, load(xr, c) * inv * load(w, c));
  }
}

// After the sum: / cols, + eps, sqrtf, 1 / ., x * inv, * w: six correctly rounded fp32 operations.
constexpr int kOps = 6;

kc::Entry envelope(kc::Entry&& e) {
  using namespace kc::rows_cpu;
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .tile("cols", kTile, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s, 1); }, kOps);  // + the square's rounding
}
}  // namespace

KC_KERNEL("rows/rms_norm/f32_out", cpu) {
  return envelope(kc::rows::rms_norm(kc::DType::f32, kc::DType::f32, kEps)).launch(rms_norm<float, float>);
}

// A 16-bit y moves by half the relative error of its sum of squares, which cannot cancel: a bf16
// sum in 32 lanes of at most 1024 squares stays inside y's rounding. fp16 sums overflow on gate 4's
// rows and are shown; the bf16 replays' margins are printed.
constexpr const char* kHidden =
    "y is 16-bit and moves by half its sum of squares' relative error: a bf16 sum in 32 lanes stays "
    "inside y's rounding (fp16 overflows and is shown)";

KC_KERNEL("rows/rms_norm/bf16_out", cpu) {
  return envelope(kc::rows::rms_norm(kc::DType::bf16, kc::DType::bf16, kEps))
      .hidden(kHidden)
      .launch(rms_norm<kc::bf16, kc::bf16>);
}

KC_KERNEL("rows/rms_norm/f16_out", cpu) {
  return envelope(kc::rows::rms_norm(kc::DType::f16, kc::DType::f16, kEps))
      .hidden(kHidden)
      .launch(rms_norm<kc::f16, kc::f16>);
}
