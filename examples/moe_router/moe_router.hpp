// A MoE router: the 8 largest of each token's expert logits (ids) and their softmax renormalised over
// those 8 (weights). Stated rule for ids: descending, a NaN logit above +Inf, ties to the lower
// expert; the weights keep float64's classes (a NaN or an infinite logit among the top: NaN weights).
#pragma once
#include <kc/formula.hpp>

namespace moe {

inline constexpr int64_t kTop = 8;

// Gate 4: a token's largest logit (0), the next 7 at -10 and the rest at -40: 7 e^-10 is below half
// an fp16 and a bf16 ulp of 1, so every half-precision sum of the 8 terms gives 1, fp32's does not.
inline std::vector<double> stalls(const kc::Case&, int64_t tokens, int64_t experts) {
  std::vector<double> v(size_t(tokens * experts), -40);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t k = 0; k < kTop; ++k) v[size_t(t * experts + (t + k) % experts)] = k ? -10 : 0;
  return v;
}

inline kc::Entry contract() {
  return kc::formula::Formula()
      .in("logits", kc::DType::f32, {"tokens", "experts"}, {.rows = kc::plants::kAllRows, .sums_fill = stalls})
      .out("ids", kc::DType::i32, {"tokens", kTop})
      .out("weights", kc::DType::f32, {"tokens", kTop})
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
      .sums(kc::DType::f32, [](const kc::Shape&) { return double(kTop); })  // one chain of 8
      .ulp("expf", 1);
}

}  // namespace moe
