// The MoE family (families/moe/README.md): the router (scores, top-k, renormalised weights and the
// expert-major order) and the combine (the weighted sum of k experts' rows and a shared expert's),
// written once on kc/formula.hpp. A kernel's registration adds its envelope, depth and ulps.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <kc/formula.hpp>

namespace kc::moe {

enum class Score : uint8_t { softmax, sigmoid };

struct Route {
  Score score = Score::softmax;
  int64_t k = 8;      // top-1 .. top-8
  bool bias = false;  // a per-expert bias added to the sigmoid score to pick, never to weigh
};

// The stated rule of every id output: descending by key, a NaN key above +Inf, ties to the lower
// expert. The key is the logit (softmax and sigmoid are monotone, so ranking the logit ranks the
// score exactly), or with a bias sigmoid(logit) + bias in float64.
template <class V> std::vector<int64_t> rank(const V& x, const double* bias, int64_t experts, int64_t k) {
  std::vector<double> key(static_cast<size_t>(experts));
  for (int64_t e = 0; e < experts; ++e)
    key[size_t(e)] = bias ? 1.0 / (1.0 + std::exp(-x.raw(e))) + bias[e] : x.raw(e);
  std::vector<int64_t> ids(static_cast<size_t>(experts));
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int64_t i, int64_t j) {
    const double a = key[size_t(i)], b = key[size_t(j)];
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && (!std::isnan(b) || i < j);
    return a > b || (a == b && i < j);
  });
  ids.resize(size_t(k));
  return ids;
}

// Buffers: logits f32 [tokens, experts], bias f32 [experts] (with Route::bias); outputs ids i32 and
// weights f32 [tokens, k], and the expert-major order: counts i32 [experts] (picks of each expert),
// offsets i32 [experts] (where each expert's slots start: the exclusive prefix sum of counts) and
// perm i32 [tokens, k] (the slots t*k + j grouped by expert, ascending within each expert).
// Weights: softmax exp(x_j - x_top) / sum_j exp(x_j - x_top) over the k picked; sigmoid
// s_j / sum_j s_j with s = 1 / (1 + exp(-x)). Ids, counts, offsets and perm are bit-exact.
inline formula::Formula route_formula(Route r) {
  using formula::In;
  if (r.k < 1 || r.k > 8) throw Error("moe::route: top-" + std::to_string(r.k) + " (1 to 8 served)");
  if (r.bias && r.score != Score::sigmoid)
    throw Error("moe::route: a bias picks on sigmoid scores (softmax with a bias is not served)");
  const int64_t k = r.k;
  // With a bias the key is computed, and fp32 orders two keys as float64 does only where they lie
  // apart by more than its rounding (about 5e-7 here). So the bias form's logits are multiples of
  // 2^-4 in [-4, 4] and its bias multiples of 2^-4 in [0, 1/4]: the 645 keys they make lie at least
  // 7.7e-6 apart (or are equal, from equal inputs). Given values take no plants (In::values): the NaN
  // rule is the softmax forms' (the same ranking).
  auto grid = [](uint64_t salt, int64_t steps) {
    return [salt, steps](const Shape& s, int64_t i) {
      uint64_t v = uint64_t(i) * 0x9e3779b97f4a7c15ULL + salt + uint64_t(s["tokens"]) * 31 + uint64_t(s["experts"]);
      v ^= v >> 31, v *= 0xbf58476d1ce4e5b9ULL, v ^= v >> 29;
      return double(int64_t(v % uint64_t(steps))) / 16;
    };
  };
  In logits{.lo = -4, .hi = 3, .rows = plants::kAllRows, .fills = !r.bias, .sums = formula::Sums::same};
  if (r.bias) logits.values = [g = grid(1, 129)](const Shape& s, int64_t i) { return g(s, i) - 4; };
  auto f = formula::Formula().in("logits", DType::f32, {"tokens", "experts"}, logits);
  if (r.bias) {
    In b{.fills = false, .sums = formula::Sums::same};
    b.values = grid(2, 5);
    f.in("bias", DType::f32, {"experts"}, b);
  }
  const char* rule = "descending by key (the logit; with a bias sigmoid + bias), a NaN key above +Inf, ties to the lower expert";
  f.out("ids", DType::i32, {"tokens", k})
      .out("weights", DType::f32, {"tokens", k})
      .out("counts", DType::i32, {"experts"})
      .out("offsets", DType::i32, {"experts"})
      .out("perm", DType::i32, {"tokens", k})
      .rule("ids", rule)
      .rule("counts", "the picks of each expert, by the ids' rule")
      .rule("offsets", "the exclusive prefix sum of counts")
      .rule("perm", "slots t*k + j grouped by expert, ascending within each");
  if (!r.bias) f.fills({"ties", "sign", "range"});
  const bool bias = r.bias, sig = r.score == Score::sigmoid;
  auto bias_of = [bias](auto& c, std::vector<double>& b) -> const double* {
    if (!bias) return nullptr;
    auto v = c.in("bias");
    b.resize(size_t(v.size()));
    for (int64_t e = 0; e < v.size(); ++e) b[size_t(e)] = v.raw(e);
    return b.data();
  };
  f.each({"tokens"}, [k, sig, bias_of](auto& c) {
    auto x = c.in("logits");
    std::vector<double> b;
    const auto top = rank(x, bias_of(c, b), x.size(), k);
    for (int64_t j = 0; j < k; ++j) c.out("ids")[j] = top[size_t(j)];
    if (sig) {
      auto s = [&](int64_t j) { return 1.0 / (1.0 + c.exp(-x[top[size_t(j)]])); };
      auto total = c.sum(k, s);
      for (int64_t j = 0; j < k; ++j) c.out("weights")[j] = s(j) / total;
    } else {
      auto m = x[top[0]];
      auto e = [&](int64_t j) { return c.exp(x[top[size_t(j)]] - m); };
      auto total = c.sum(k, e);
      for (int64_t j = 0; j < k; ++j) c.out("weights")[j] = e(j) / total;
    }
  });
  f.each({}, [k, bias_of](auto& c) {
    auto x = c.in("logits");
    const int64_t tokens = c.size("tokens"), experts = c.size("experts");
    std::vector<double> b;
    const double* bp = bias_of(c, b);
    std::vector<std::vector<int64_t>> slots(static_cast<size_t>(experts));
    for (int64_t t = 0; t < tokens; ++t) {
      struct Row {  // token t's logits: a view of one row
        decltype(x)& v; int64_t base;
        double raw(int64_t e) const { return v.raw(base + e); }
      } row{x, t * experts};
      const auto top = rank(row, bp, experts, k);
      for (int64_t j = 0; j < k; ++j) slots[size_t(top[size_t(j)])].push_back(t * k + j);
    }
    int64_t at = 0;
    for (int64_t e = 0; e < experts; ++e) {
      c.out("counts")[e] = int64_t(slots[size_t(e)].size());
      c.out("offsets")[e] = at;
      for (int64_t s : slots[size_t(e)]) c.out("perm")[at++] = s;
    }
  });
  return f;
}

// The combine: y[t] = sum_j w[t,j] * e[slot[t,j]] (+ shared[t]), summed in fp32 in j's order, the
// shared row added last. e holds the experts' rows [slots, hidden] in any order (the expert-major
// one: slot[t,j] is where token t's j-th pick landed); slot i32 [tokens, k] into e's rows.
// In place, y is written over `shared` (Entry::in_place("y", "shared")).
struct Combine {
  int64_t k = 8;
  bool shared = true;
  DType rows = DType::bf16;  // the experts' rows and the shared one
  DType out = DType::bf16;
};

inline formula::Formula combine_formula(Combine cb) {
  using formula::In;
  if (cb.k < 1 || cb.k > 8) throw Error("moe::combine: top-" + std::to_string(cb.k) + " (1 to 8 served)");
  auto f = formula::Formula()
               .in("e", cb.rows, {"slots", "hidden"})
               .ids("slot", {"tokens", cb.k}, "e")
               .in("w", DType::f32, {"tokens", cb.k}, In{.lo = -3, .hi = 0, .positive = true});
  if (cb.shared) f.in("shared", cb.rows, {"tokens", "hidden"});
  f.out("y", cb.out, {"tokens", "hidden"});
  const int64_t k = cb.k;
  const bool shared = cb.shared;
  const DType out = cb.out;
  f.each({"tokens", "hidden"}, [k, shared, out](auto& c) {
    auto w = c.in("w");
    auto acc = c.sum(k, [&](int64_t j) { return w[j] * c.row("e", c.id("slot", j))[0]; });
    if (shared) acc = acc + c.in("shared")[0];
    c.out("y")[0] = out == DType::f32 ? acc : c.round(acc, out);
  });
  return f;
}

}  // namespace kc::moe
