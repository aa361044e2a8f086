// GELU op by op in bf16, as a framework without fusion runs it: every step stored as bf16 and read
// back, y = bf16(bf16(0.5 x) * bf16(1 + bf16(erf(bf16(x * sqrt(1/2)))))). Each f.round is a rounding
// point: the harness carries an interval through the fp32 steps and rounds it there as the kernel does.
#pragma once
#include <cmath>

#include <kc/formula.hpp>

namespace gelu {

inline kc::Entry contract() {
  using kc::DType;
  return kc::formula::Formula()
      .in("x", DType::bf16, {"rows", "cols"}, {.lo = -6, .hi = 2})
      .out("y", DType::bf16, {"rows", "cols"})
      .fills({"zeros", "tiny", "range"})
      .each({"rows", "cols"}, [](auto& f) {
        auto x = f.in("x")[0];
        auto bf = [&](auto v) { return f.round(v, DType::bf16); };
        auto e = bf(f.erf(bf(x * M_SQRT1_2)));
        f.out("y")[0] = bf(bf(0.5 * x) * bf(1.0 + e));
      })
      .entry()
      .served({{"rows", {1, 7, 64}}, {"cols", {64, 1000}}})
      .ulp("erff", 2);
}

}  // namespace gelu
