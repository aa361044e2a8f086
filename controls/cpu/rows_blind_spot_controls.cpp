// Planted controls for the rows family's newer cases on the CPU: each bug is invisible to the older
// ones (single plants at the last column, one-dim-at-a-time edges at one row) and red on the case
// built for it: a whole row of -Inf, a plant at the first column, a negative NaN, a second size of
// rows. Green on every other gate.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc::rows_cpu;

float nan_max(float a, float b) { return (std::isnan(a) || a > b) ? a : b; }

// The rows CPU kernels' envelope, from `least` columns. The masked-row controls take 2: at 1 a
// single -Inf is already a whole row, which gate 1 planted before whole rows existed, and they
// must show on the whole-row plant alone.
kc::Entry envelope(kc::Entry&& e, int64_t least = 1) {
  return std::move(e)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .tile("cols", kTile, 1, least);
}

// A bf16 softmax with rows/softmax/bf16_out's declarations; `depth` is its sum's chain.
kc::Entry softmax_entry(std::function<double(const kc::Shape&)> depth) {
  return envelope(kc::rows::softmax(kc::DType::bf16, kc::DType::bf16), 2)
      .sums(kc::DType::f32, std::move(depth), 1 + 16)
      .ulp("expf", 1)
      .ulp("expf (in the sum)", 1)
      .hidden("a bf16 output of at most 1024 terms in [0, 1] hides a half-precision sum's error");
}

// Gate 1 (a row of -Inf): lanes start at -FLT_MAX, "the lowest float". Every finite value and +Inf
// beat it, so single plants pass; a row of -Inf comes out -FLT_MAX where float64's max is -Inf.
void max_from_flt_max(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    float lane[kLanes];
    for (auto& l : lane) l = -FLT_MAX;
    for (int64_t c = 0; c < cols; ++c) lane[c % kLanes] = nan_max(lane[c % kLanes], x[r * cols + c]);
    for (int h = kLanes / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] = nan_max(lane[l], lane[l + h]);
    y[r] = lane[0];
  }
}

// Gate 1 (negative NaN): a max on order-preserving integer keys of the bits (flip all bits of a
// negative, the sign bit of a positive), trusting that a NaN's bits sort above +Inf's. A positive
// NaN's do; a negative NaN's key sorts below -Inf's, so the row's finite max wins over it.
uint32_t key_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
float float_of(uint32_t k) {
  const uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
void max_int_keys(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t lane[kLanes] = {};
    for (int64_t c = 0; c < cols; ++c) lane[c % kLanes] = std::max(lane[c % kLanes], key_of(x[r * cols + c]));
    for (int h = kLanes / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lane[l] = std::max(lane[l], lane[l + h]);
    y[r] = float_of(lane[0]);
  }
}

// Gate 1 (a row of -Inf): rows/softmax/bf16_out's loops with a guard for a fully masked row, which
// it writes as zeros (nothing to attend to), a rule it never states: float64 gives NaN there.
void softmax_masked_zero(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  kc::bf16* y = b.out<kc::bf16>("y");
  std::vector<float> e(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const kc::bf16* xr = x + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = nan_max(m, load(xr, c));
    if (m == -INFINITY) {  // the planted rule
      for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, 0.f);
      continue;
    }
    for (int64_t c = 0; c < cols; ++c) e[size_t(c)] = std::exp(load(xr, c) - m);
    const float s = tiled_sum(cols, [&](int64_t c) { return e[size_t(c)]; });
    for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, e[size_t(c)] / s);
  }
}

// Gate 1 (-Inf at the first column): an online softmax, a running max m from -Inf and a sum
// rescaled by exp(m_old - m_new), with no guard for "nothing but -Inf so far". A leading -Inf makes
// exp(-Inf - -Inf) = NaN and the row NaN where float64 is finite; a -Inf later (the last or middle
// column) meets a finite m and adds exp(-Inf) = 0, as it should.
void softmax_online_unguarded(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  kc::bf16* y = b.out<kc::bf16>("y");
  for (int64_t r = 0; r < rows; ++r) {
    const kc::bf16* xr = x + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = load(xr, c), mn = nan_max(m, v);
      s = s * std::exp(m - mn) + std::exp(v - mn);
      m = mn;
    }
    for (int64_t c = 0; c < cols; ++c) store(y, r * cols + c, std::exp(load(xr, c) - m) / s);
  }
}

// Gate 3 (second size of rows): rows/sum/f32's tiles, but row r starts at r * 8 * (cols / 8), its
// width counted in whole 8-float vectors (an AVX loop's unit) and rounded down. Right at one row
// and at whole vectors (every served width); at 2 rows and a ragged width row 1 reads row 0's
// columns (in bounds: the stride is short, never past x).
void sum_floor_stride(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"], stride = cols / 8 * 8;
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) y[r] = tiled_sum(cols, [&](int64_t c) { return x[r * stride + c]; });
}

}  // namespace

KC_CONTROL("rows/ctl_max_flt_max/f32", cpu) {
  return envelope(kc::rows::max(kc::DType::f32, kc::DType::f32), 2)
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(max_from_flt_max);
}

KC_CONTROL("rows/ctl_max_int_keys/f32", cpu) {
  return envelope(kc::rows::max(kc::DType::f32, kc::DType::f32))
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(max_int_keys);
}

KC_CONTROL("rows/ctl_softmax_masked_zero/bf16", cpu) {
  return softmax_entry([](const kc::Shape& s) { return depth_of(s); })
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(softmax_masked_zero);
}

// Its sum is one chain: each step rounds twice (the rescale, the add), and the rescale's exp carries
// expf's error (an ulp, 2u): four roundings a column.
KC_CONTROL("rows/ctl_softmax_online_unguarded/bf16", cpu) {
  return softmax_entry([](const kc::Shape& s) { return 4.0 * double(s["cols"]); })
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch(softmax_online_unguarded);
}

// Served at whole tiles from one row; gate 3's edges of cols at one row pass, at two rows fail.
KC_CONTROL("rows/ctl_sum_floor_stride/f32", cpu) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 3}}, {"cols", {256, 1024}}})
      .tile("cols", kTile, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch(sum_floor_stride);
}
