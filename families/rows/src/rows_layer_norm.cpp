// rows::layer_norm: y = (x - mean) * rstd * w + b, with each row's mean and rstd written too.
#include <algorithm>
#include <cmath>

#include "kc/formula.hpp"
#include "kc/spec.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {
constexpr int kRedraws = 32;

// The relative change of a row's sum of squares that moves rstd (fp32, ~ S^-1/2: half of it) by
// 100x its exact-sum bound, with half again for margin.
double needed_rel(const Case& c) {
  double ops = 8, ulps = 0;
  if (c.spec && c.spec->sums) {
    ops = c.spec->sums->ops;
    for (const auto& u : c.spec->sums->ulps) ulps += u.ulps;
  }
  return 2 * 100 * (u32 + (ops + 2 * ulps) * u32) * 1.5;
}

// Gate 4: half a row of squares_row's integers, the other half their negatives, shuffled (a 0 at
// odd cols), so sum x is exactly 0 in any order, x - mean is x, and the squares (at most 2^24 in
// all) sum exactly in fp32. Redrawn until each replay of the squares misses by `need` relative.
std::vector<double> zero_mean_row(Rng& r, int64_t cols, DType t, double need) {
  const size_t h = size_t(cols / 2);
  std::vector<double> v(static_cast<size_t>(cols)), sq(static_cast<size_t>(cols));
  for (int k = 0, tries = 0; k < kRedraws; ++k) {
    std::fill(v.begin(), v.end(), 0.0);
    if (h > 0) {
      auto half = squares_row(r, int64_t(h), t);
      for (size_t j = 0; j < h; ++j) v[j] = half[j], v[h + j] = -half[j];
    }
    for (size_t j = v.size() - 1; j > 0; --j) std::swap(v[j], v[size_t(r.range(0, int64_t(j)))]);
    double s = 0;
    for (size_t j = 0; j < v.size(); ++j) s += (sq[j] = v[j] * v[j]);
    if (s > 0x1p24) {  // rare: a draw past fp32's exact integers does not count as a redraw
      if (++tries > 1000) throw Error("rows::layer_norm: no gate 4 row with its squares' sum below 2^24");
      --k;
      continue;
    }
    if (replays_miss(sq, s, need * s)) break;
  }
  return v;
}
}  // namespace

Entry layer_norm(DType in, DType out, double eps) { return layer_norm(in, out, eps, LayerNormForm{}); }

// Written once on the formula API (kc/formula.hpp): the harness derives the float64 reference (two
// passes), the outputs' intervals and gate 4's replays from the arithmetic. The kernel's variance is
// f.centred_squares around its computed mean (two passes: the mean's error enters squared, never
// first order, so a one-pass E[x^2] - E[x]^2 still falls outside on the offset fill) or f.welford's
// chain (its own proven interval; its stated gate 1 rule: where float64's mean is infinite, a NaN
// mean holds too). rstd is rsqrtf's (the spec's .ulp("rsqrtf"), 2 where it states none: a 1 / sqrtf
// is inside it); every step after the sums is counted by the formula, each once: the spec's ops add
// nothing to the mean's and rstd's intervals (y's bound still adds them: a few fp32 units of
// slack). Whole rows: a masked row of x (mean -Inf, x - mean NaN: y and rstd NaN; +Inf is its
// mirror, a NaN row one NaN). w and b are per-column, each output reads one value
// of each: no whole rows. Fills (x): tiny rows (where eps sits matters), a large offset
// (cancellation: the case a one-pass variance fails), magnitudes over the type's range.
Entry layer_norm(DType in, DType out, double eps, const LayerNormForm& form) {
  const bool welford = form.variance == LayerNormForm::Variance::welford, stats = form.stats;
  const DType wt = form.weights.value_or(in);
  // range: (x - mean)^2 summed stays far inside fp32 (|x| < 2^51).
  formula::In x;
  x.lo = -4, x.hi = 3, x.rows = plants::kMaskRow, x.range = {-50, 50};
  x.sums_fill = [in](const Case& c, int64_t rows, int64_t cols) {
    const double need = needed_rel(c);
    std::vector<double> v(size_t(rows * cols));
    Rng rx = rng_for(c, "x");
    each_stream(rx, rows, [&](int64_t row, Rng& r) {
      auto z = zero_mean_row(r, cols, in, need);
      std::copy(z.begin(), z.end(), v.begin() + row * cols);
    });
    return v;
  };
  formula::In wb;  // spread alone at every gate but gate 1's plants
  wb.lo = -2, wb.hi = 1, wb.rows = plants::kNoRows, wb.fills = false, wb.sums = formula::Sums::same;
  formula::Formula f;
  f.in("x", in, {"rows", "cols"}, std::move(x)).in("w", wt, {"cols"}, wb).in("b", wt, {"cols"}, wb);
  f.out("y", out, {"rows", "cols"});
  if (stats) f.out("mean", DType::f32, {"rows"}).out("rstd", DType::f32, {"rows"});
  if (welford && stats)
    f.rule("mean", "where float64's mean is infinite, NaN holds too (Welford's update meets inf - inf)",
           formula::Rule::nonfinite);
  f.fills({fills::kTiny, fills::kOffset, fills::kRange});
  f.each({"rows"}, [eps, welford, stats](auto& f) {
    auto x = f.in("x"), w = f.in("w"), b = f.in("b");
    const int64_t n = x.size();
    using N = std::decay_t<decltype(x[0])>;
    N mean, sq;
    if (welford) {
      auto m = f.welford(x);
      mean = m.mean, sq = m.m2;
    } else {
      mean = f.sum(n, [&](int64_t j) { return x[j]; }) / double(n);
      sq = f.centred_squares(x, mean);
    }
    const N rs = f.rsqrt(sq / double(n) + eps);
    auto y = f.out("y");
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - mean) * rs * w[j] + b[j];
    if (stats) f.out("mean")[0] = f.interval(mean), f.out("rstd")[0] = rs;
  });
  return f.entry();
}

}  // namespace kc::rows
