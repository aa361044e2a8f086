// A row-wise FP8 quantizer: scale = max(amax, 1e-12) / 448 per row (f32; an all-zero row keeps the
// floor), q = e4m3(x / scale) as codes, compared as the values they decode to (NaN codes included).
// The harness carries the scale's rounding into each q's interval and rounds it as e4m3 does.
#pragma once
#include <kc/formula.hpp>

namespace fp8q {

inline kc::Entry contract() {
  using kc::DType;
  return kc::formula::Formula()
      .in("x", DType::bf16, {"rows", "cols"}, {.lo = -12, .hi = 12, .rows = kc::plants::kInfNanRows})
      .codes("q", kc::formula::Code::e4m3, {"rows", "cols"})
      .out("scale", DType::f32, {"rows"})
      .fills({"range", "zeros", "subnormal", "offset"})
      .each({"rows"}, [](auto& f) {
        auto x = f.in("x");
        auto amax = f.maximum(x.size(), [&](int64_t j) { return f.abs(x[j]); });
        auto s = f.max(amax, 1e-12) / 448.0;
        f.out("scale")[0] = s;
        for (int64_t j = 0; j < x.size(); ++j) f.out("q")[j] = x[j] / s;
      })
      .entry()
      .served({{"rows", {1, 7, 64}}, {"cols", {64, 1000}}});
}

}  // namespace fp8q
