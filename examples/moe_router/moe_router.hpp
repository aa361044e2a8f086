// A MoE router: the 8 largest of each token's expert logits (ids) and their softmax renormalised over
// those 8 (weights). Stated rule for ids: descending, a NaN logit above +Inf, ties to the lower
// expert; the weights keep float64's classes (a NaN or an infinite logit among the top: NaN weights).
#pragma once
#include <kc/formula.hpp>

namespace moe {

inline constexpr int64_t kTop = 8;

inline kc::Entry contract() {
  using kc::DType;
  return kc::formula::Formula()
      .in("logits", DType::f32, {"tokens", "experts"}, {.rows = kc::plants::kAllRows, .sums = kc::formula::Sums::same})
      .out("ids", DType::i32, {"tokens", kTop})
      .out("weights", DType::f32, {"tokens", kTop})
      .rule("ids", "the 8 largest logits, descending; a NaN above +Inf; ties to the lower expert")
      .fills({"ties", "sign", "range"})
      .each({"tokens"}, [](auto& f) {
        auto x = f.in("logits");
        const auto top = f.top(x, kTop);
        auto m = x[top[0]];
        auto s = f.sum(kTop, [&](int64_t k) { return f.exp(x[top[k]] - m); });
        for (int64_t k = 0; k < kTop; ++k) {
          f.out("ids")[k] = top[size_t(k)];
          f.out("weights")[k] = f.exp(x[top[k]] - m) / s;
        }
      })
      .entry()
      .served({{"tokens", {1, 7, 64}}, {"experts", {8, 64, 256}}})
      .range("experts", kTop, 1)
      .sums(DType::f32, [](const kc::Shape&) { return double(kTop); })  // one chain of 8
      .ulp("expf", 1)
      .hidden("8 exp terms in [0, 1]: an fp16 sum errs by about 2^-11, the weights' bound is near 2^-18");
}

}  // namespace moe
