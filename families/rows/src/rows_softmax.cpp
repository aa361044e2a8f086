// rows::softmax: y = exp(x - max) / sum exp(x - max), a row at a time.
#include <algorithm>
#include <cmath>

#include "kc/formula.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {
// Gate 4's row (the formula's In::sums_fill). exp's terms cannot all be integers, so no fill makes
// the fp32 sums exact: the bound keeps gamma(depth), and what the fill chooses is how much a
// half-precision sum loses. Every term is 1 (x = max) or one small value e^d: the 1s at columns
// [0, lanes) (where the 32 lanes start) and, with `mid`, cols / 2 (where the second half starts),
// so each replay's chains start at a 1 and a small term meets a partial of at least 1, where fp16
// drops anything up to 2^-11 (bf16 2^-8). Over these placements and d on a 1/16 grid (m + d exact in
// every input type while |m + d| < 16), the row kept is the one with the largest small total among
// those whose every fp16 and bf16 replay, in each order, comes out at exactly the count of 1s:
// checked here, not argued. Each replay then moves every y by the small total over that count: 2.9
// x 2^-11 at 64 columns (about 24,000 fp32 units: 100x the bound of a kernel declaring up to 240 there),
// 6.8 x at 256, 30 x at 1,024, about cols / 33 x beyond. A bf16 output's own rounding (2^-9) still
// hides that at small cols.
struct StallRow {
  std::vector<bool> one;
  double d = 0;
};

StallRow stall_row(int64_t n) {
  constexpr double kTop = -7.625;  // the largest d on the grid with e^d <= 2^-11
  constexpr int kSteps = 126;      // d down to -15.5
  StallRow best{std::vector<bool>(size_t(n), true), 0};
  double best_loss = 0;
  // Widest placements first: past a few hundred columns they win at once, and each later one is
  // tried only where it could still do better.
  for (int64_t lanes = 32; lanes >= 1; lanes /= 2)
    for (bool mid : {true, false}) {
      std::vector<bool> one(size_t(n), false);
      for (int64_t j = 0; j < std::min(lanes, n); ++j) one[size_t(j)] = true;
      if (mid) one[size_t(n / 2)] = true;
      const auto ones = double(std::count(one.begin(), one.end(), true));
      if (ones == double(n)) continue;
      auto loss = [&](int k) { return (double(n) - ones) * std::exp(kTop - k / 16.0) / ones; };
      auto stalls = [&](int k) {
        const double small = std::exp(kTop - k / 16.0);
        std::vector<double> t(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; ++j) t[size_t(j)] = one[size_t(j)] ? 1 : small;
        for (const auto& rp : kReplays)
          if (replay_sum(t.data(), t.size(), rp.f, rp.o) != ones) return false;
        return true;
      };
      int hi = kSteps;  // the least k that stalls, among those that would beat the best so far
      while (hi >= 0 && loss(hi) <= best_loss) --hi;
      if (hi < 0 || !stalls(hi)) continue;
      if (hi > 0 && stalls(0)) hi = 0;
      for (int lo = 1; lo < hi;) {  // stalls(hi) holds throughout
        const int k = (lo + hi) / 2;
        if (stalls(k)) hi = k;
        else lo = k + 1;
      }
      best_loss = loss(hi);
      best = {one, kTop - hi / 16.0};
    }
  return best;
}
}  // namespace

// Written once on the formula API (kc/formula.hpp): the harness derives the float64 reference, each
// y's magnitude (the sum's terms are positive: m = y) and its bound (exp's ulps in e and again through
// S, the division's rounding), and gate 4's replays of S. Whole rows: a fully masked row (-Inf) is NaN
// in float64 (exp(-inf - -inf)), as are rows of +Inf and of NaN; a row of -Inf but one finite value
// is one-hot. Fills: |x| < 8 (exp's range is no concern, reordered sums still differ), a large offset
// (a kernel that does not subtract the maximum overflows exp), ties (equal maxima), rows of one sign.
// Gate 4: stall_row's terms in every row, about a max drawn from 0 to 4.
Entry softmax(DType in, DType out) {
  formula::In x{.lo = -3, .hi = 2, .rows = plants::kAllRows};
  x.sums_fill = [](const Case& c, int64_t rows, int64_t cols) {
    const StallRow sr = stall_row(cols);
    Rng r = rng_for(c, "x");
    std::vector<double> v(size_t(rows * cols));
    for (int64_t row = 0; row < rows; ++row) {
      const double m = double(r.range(0, 4));
      for (int64_t j = 0; j < cols; ++j) v[size_t(row * cols + j)] = sr.one[size_t(j)] ? m : m + sr.d;
    }
    return v;
  };
  return formula::Formula()
      .in("x", in, {"rows", "cols"}, std::move(x))
      .out("y", out, {"rows", "cols"})
      .fills({fills::kOffset, fills::kTies, fills::kSign})
      .each({"rows"}, [](auto& f) {
        auto x = f.in("x");
        const int64_t n = x.size();
        auto m = f.maximum(n, [&](int64_t j) { return x[j]; });
        auto s = f.sum(n, [&](int64_t j) { return f.exp(x[j] - m); });
        auto y = f.out("y");
        for (int64_t j = 0; j < n; ++j) y[j] = f.exp(x[j] - m) / s;
      })
      .entry();
}

}  // namespace kc::rows
