// The scan family (families/scan/README.md): Mamba's selective scan over a window, written once on
// kc/formula.hpp. Each step's fp32 operations are tracked, so the bound grows with the window.
#pragma once
#include <kc/formula.hpp>

namespace kc::scan {

// For each channel d and state n, over steps t of the window:
//   h[d,n] = exp(-(dt[t,d] * a[d,n])) * h[d,n] + (dt[t,d] * x[t,d]) * B[t,n]
//   y[t,d] = sum_n C[t,n] * h[d,n]
// from h0 [channels, state]; the last h is written to h [channels, state]. a is Mamba's -A (> 0),
// dt its softplus'd step (> 0). Buffers f32: x, dt [steps, channels], a [channels, state], B, C
// [steps, state], h0 [channels, state]; outputs y [steps, channels], h [channels, state].
// Gate 4: the state's exp terms make no sum exact, so every input but C keeps the spread fill
// (Sums::same); C takes the integers with one 2^16 a step, which a half-precision sum over the state
// cannot carry (fp16 overflows, bf16 drops the terms beside it) while fp32's bound holds.
// Written in the kernel's order: the decay, the input term, the update (an fma counts as the
// multiply and the add written), then y's sum over the state.
// reordered: a form that groups the steps otherwise (a parallel scan's chunks: the decays' product
// apart from the state) meets an infinity and a zero in another order, so where float64's value is
// infinite it may give NaN (Rule::nonfinite on y and h); its finite outputs keep the bound.
inline formula::Formula selective(bool reordered = false) {
  using formula::In;
  const auto same = formula::Sums::same;
  formula::Formula f;
  f.in("x", DType::f32, {"steps", "channels"}, In{.lo = -2, .hi = 1, .sums = same})
      .in("dt", DType::f32, {"steps", "channels"}, In{.lo = -7, .hi = -3, .positive = true, .fills = false, .sums = same})
      .in("a", DType::f32, {"channels", "state"}, In{.lo = 0, .hi = 3, .positive = true, .fills = false, .sums = same})
      .in("B", DType::f32, {"steps", "state"}, In{.lo = -2, .hi = 0, .sums = same})
      .in("C", DType::f32, {"steps", "state"}, In{.lo = -2, .hi = 0})
      .in("h0", DType::f32, {"channels", "state"}, In{.lo = -2, .hi = 1, .sums = same})
      .out("y", DType::f32, {"steps", "channels"})
      .out("h", DType::f32, {"channels", "state"})
      .fills({"zeros", "sign"})
      .each({"channels"}, [](auto& f) {
        auto x = f.in("x"), dt = f.in("dt"), a = f.in("a"), B = f.in("B"), C = f.in("C"), h0 = f.in("h0");
        const int64_t steps = x.size(), state = a.size();
        using N = std::decay_t<decltype(x[0])>;
        std::vector<N> h(static_cast<size_t>(state));
        for (int64_t n = 0; n < state; ++n) h[size_t(n)] = h0[n];
        for (int64_t t = 0; t < steps; ++t) {
          const N d = dt[t], dx = d * x[t];
          for (int64_t n = 0; n < state; ++n)
            h[size_t(n)] = f.exp(-(d * a[n])) * h[size_t(n)] + dx * B[t * state + n];
          f.out("y")[t] = f.sum(state, [&](int64_t n) { return C[t * state + n] * h[size_t(n)]; });
        }
        for (int64_t n = 0; n < state; ++n) f.out("h")[n] = h[size_t(n)];
      });
  if (reordered)
    f.rule("y", "where float64 is infinite, NaN too (the steps grouped otherwise)", formula::Rule::nonfinite)
        .rule("h", "where float64 is infinite, NaN too (the steps grouped otherwise)", formula::Rule::nonfinite);
  return f;
}

}  // namespace kc::scan
