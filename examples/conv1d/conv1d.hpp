// A causal depthwise conv1d over a sequence with a carried state (a Mamba block's): for each batch and
// channel, the W - 1 inputs carried from the previous chunk stand ahead of x, y[t] = sum_k w[c, k]
// xx[t + k], and the state out holds the last W - 1 of xx. x and the state are bf16, w and y f32.
#pragma once
#include <kc/formula.hpp>

namespace conv1d {

inline constexpr int64_t kW = 4;  // taps

inline kc::Entry contract() {
  using kc::DType;
  return kc::formula::Formula()
      .in("x", DType::bf16, {"batch", "seq", "ch"})
      .in("state", DType::bf16, {"batch", kW - 1, "ch"})
      .in("w", DType::f32, {"ch", kW})
      .out("y", DType::f32, {"batch", "seq", "ch"})
      .out("state_out", DType::bf16, {"batch", kW - 1, "ch"})
      .fills({"offset", "range", "zeros"})
      .each({"batch", "ch"}, [](auto& f) {
        auto x = f.in("x"), st = f.in("state"), w = f.in("w");
        auto xx = [&](int64_t j) { return j < kW - 1 ? st[j] : x[j - (kW - 1)]; };
        for (int64_t t = 0; t < x.size(); ++t) f.out("y")[t] = f.sum(kW, [&](int64_t k) { return w[k] * xx(t + k); });
        for (int64_t j = 0; j < kW - 1; ++j) f.out("state_out")[j] = xx(x.size() + j);
      })
      .entry()
      .served({{"batch", {1, 3}}, {"seq", {1, 5, 64}}, {"ch", {8, 100}}})
      .sums(DType::f32, [](const kc::Shape&) { return double(kW); });  // one chain of W taps
}

}  // namespace conv1d
