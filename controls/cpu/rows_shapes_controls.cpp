// Gate 3's planted controls for the rows family on the CPU: red on gate 3 (bound at a ragged tile,
// interval at a skipped rounding point, not_bit_equal for a replacement), green on the others.
#include <algorithm>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"
#include "../../kernels/rows/geglu/cpu_geglu.hpp"
#include "../../kernels/rows/sum/cpu_sum.hpp"

namespace {
using namespace kc::rows_cpu;

// Gate 3 (replacement): rows/sum/f32's tiles and lanes, but its lanes meet in adjacent pairs
// instead of by halves: within fp32's bound, never its bits on spread values. Integer sums stay
// exact in any order, so gate 4 passes.
void pairs_sum(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    float total = 0;
    for (int64_t t0 = 0; t0 < cols; t0 += kTile) {
      int64_t t1 = std::min(cols, t0 + kTile);
      float lane[kLanes] = {};
      for (int64_t c = t0; c < t1; ++c) lane[(c - t0) % kLanes] += x[r * cols + c];
      for (int step = 1; step < kLanes; step *= 2)
        for (int l = 0; l + step < kLanes; l += 2 * step) lane[l] += lane[l + step];
      total += lane[0];
    }
    y[r] = total;
  }
}

// A row sum control red on gate 3 for a bound, served at whole tiles up to `widest` columns.
kc::Entry tail_control(int64_t widest) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 3}}, {"cols", {256, widest}}})
      .tile("cols", kTile, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth_of(s); })
      .control(kc::Gate::shapes, kc::Why::bound);
}

}  // namespace

// Gate 3: drops the last column of a ragged tile. It serves only whole tiles, where it is right;
// gate 3's edges (1, 255, 257 columns) are ragged.
KC_CONTROL("rows/sum/tail_drop", cpu) {
  return tail_control(1024).launch([](const kc::Buffers& b) { sum_f32(b, /*drop_ragged_last=*/true); });
}

// Gate 3 (launch forms): a row sum whose launcher takes a second form past 2,048 columns, and that
// form drops the last column of a ragged tile. The fixed shapes reach the wide form only at 4,096
// columns (whole tiles), where it is right; gate 3 must find the form (picks) and run it ragged.
KC_CONTROL("rows/sum/wide_form_tail_drop", cpu) {
  return tail_control(4096)
      .launches({"rows/sum/wide_form_tail_drop/narrow", "rows/sum/wide_form_tail_drop/wide"})
      .picks([](const kc::Shape& s) {
        return std::string("rows/sum/wide_form_tail_drop/") + (s["cols"] > 2048 ? "wide" : "narrow");
      })
      .launch([](const kc::Buffers& b) { sum_f32(b, /*drop_ragged_last=*/b.shape()["cols"] > 2048); });
}

// Gate 3: GeGLU whose erf reads g / sqrt 2 in fp32, skipping that bf16 rounding point.
KC_CONTROL("rows/geglu/skips_erf_rounding", cpu) {
  return geglu_entry()
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) { geglu_bf16(b, /*skip_erf_arg_rounding=*/true); });
}

KC_CONTROL("rows/sum/pairs_replacement", cpu) {
  return sum_f32_entry()
      .replaces("rows/sum/f32", [](const kc::Buffers& b) { sum_f32(b); })
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .launch(pairs_sum);
}

