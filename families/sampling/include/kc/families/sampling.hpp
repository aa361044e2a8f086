// The sampling family (families/sampling/README.md): the greedy pick and the top-k / top-p draw from
// a given uniform, written once on kc/formula.hpp. Both outputs are ids, bit-exact by a stated rule.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <kc/formula.hpp>

namespace kc::sampling {

// Greedy: id [rows] = the largest logit's id; ties to the lower id; a NaN above +Inf (a row holding
// a NaN names its first NaN, so the caller sees it).
inline formula::Formula greedy(DType logits) {
  return formula::Formula()
      .in("logits", logits, {"rows", "vocab"}, {.rows = plants::kAllRows})
      .out("id", DType::i32, {"rows"})
      .rule("id", "the largest logit's id; ties to the lower id; a NaN above +Inf")
      .fills({"ties", "sign", "range"})
      .each({"rows"}, [](auto& f) { f.out("id")[0] = f.top(f.in("logits"), 1)[0]; });
}

// The draw's grids: weights are integers 1..15 times 2^-4, u and top_p multiples of 2^-8. Every sum,
// product and comparison of the rule below is then exact in fp32 (the k kept weights sum below 2^12
// grid steps, a product of it and u below 2^20), so a kernel doing them in fp32 owes float64's id.
inline uint32_t mix(uint64_t v) {
  v ^= v >> 33, v *= 0xff51afd7ed558ccdULL, v ^= v >> 33, v *= 0xc4ceb93fe53fa4b9ULL, v ^= v >> 33;
  return uint32_t(v);
}

// The top-k / top-p draw: weights p [rows, vocab] (unnormalised probabilities, finite, >= 0), u and
// top_p [rows]. Rule: keep the k largest weights (descending, ties to the lower id); c_j their
// running sums in that order; keep the first n, the least with c_n >= top_p * c_k; the draw is the
// first j < n with c_j > u * c_n (j = n - 1 where none is). id [rows] is its vocabulary id.
inline formula::Formula draw(int64_t k) {
  using formula::In;
  if (k < 1 || k > 1024) throw Error("sampling::draw: top-" + std::to_string(k) + " (1 to 1024 served)");
  In p{.plants = false};
  p.values = [](const Shape& s, int64_t i) { return double(1 + mix(uint64_t(i) * 7 + uint64_t(s["vocab"])) % 15) / 16; };
  In u{.plants = false};
  u.values = [](const Shape& s, int64_t i) { return double(mix(uint64_t(i) * 13 + uint64_t(s["rows"]) + 1) % 256) / 256; };
  In tp{.plants = false};
  tp.values = [](const Shape&, int64_t i) { return double(1 + mix(uint64_t(i) * 31 + 5) % 256) / 256; };
  return formula::Formula()
      .in("p", DType::f32, {"rows", "vocab"}, p)
      .in("u", DType::f32, {"rows"}, u)
      .in("top_p", DType::f32, {"rows"}, tp)
      .out("id", DType::i32, {"rows"})
      .rule("id", "top-k by weight (ties to the lower id), top-p's least prefix, the first running sum above u of it")
      .each({"rows"}, [k](auto& f) {
        auto w = f.in("p");
        const int64_t kk = std::min<int64_t>(k, w.size());
        const auto top = f.top(w, kk);
        std::vector<double> c(static_cast<size_t>(kk));
        double run = 0;
        for (int64_t j = 0; j < kk; ++j) c[size_t(j)] = run += w.raw(top[size_t(j)]);
        const double limit = f.in("top_p").raw(0) * c[size_t(kk - 1)];
        int64_t n = 1;
        while (n < kk && c[size_t(n - 1)] < limit) ++n;
        const double target = f.in("u").raw(0) * c[size_t(n - 1)];
        int64_t j = 0;
        while (j < n - 1 && !(c[size_t(j)] > target)) ++j;
        f.out("id")[0] = top[size_t(j)];
      });
}

}  // namespace kc::sampling
