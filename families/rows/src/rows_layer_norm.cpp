// rows::layer_norm: y = (x - mean) * rstd * w + b, with each row's mean and rstd written too.
#include <algorithm>
#include <cmath>

#include "kc/parallel.hpp"
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
// Welford's update in one fp32 chain (rows.hpp), on a finite row: the kernel's mean lies within dm
// of the row's mean, its m2 within fm of sum (x - mean)^2. With d_j = x_j - M_{j-1}, e_j = x_j - M_j
// (M_j the exact running mean, S_j = S_{j-1} + d_j e_j the exact m2) and each fp32 operation's
// rounding (1 + eps), |eps| <= u: the kernel's running mean errs by D_j <= (D_{j-1} (1 - 1/j) +
// (|d_j| + D_{j-1}) (2u + u^2) / j)(1 + u) + u |M_j| (its d and d / j roundings, on the error it
// carries, then the sum's), and each m2 term d^ e^ (1 + eps) by P_j <= |d_j e_j| t3 + (|d_j| D_j +
// |e_j| D_{j-1} + D_{j-1} D_j)(1 + t3), t3 = (1 + u)^3 - 1; the running m2 by F_j <= (F_{j-1} + P_j)
// (1 + u) + u S_j, from j = 2 (the first step is exact). Its first-order term in D is the one a
// two-pass variance does not have.
struct Welford {
  double mean, m2, dm, fm;
};
Welford welford_bound(const double* x, int64_t n) {
  const double t2 = 2 * u32 + u32 * u32, t3 = 3 * u32 + 3 * u32 * u32 + u32 * u32 * u32;
  // The first step is exact: x_1 - 0, x_1 / 1, 0 + x_1, x_1 - x_1 and 0 + x_1 * 0 (x is an fp32 value).
  double m = n ? x[0] : 0, s = 0, dm = 0, fm = 0, amax = n ? std::fabs(x[0]) : 0;
  for (int64_t j = 2; j <= n; ++j) {
    const double xj = x[j - 1], dj = xj - m, mj = m + dj / double(j), ej = xj - mj;
    const double dmj = (dm * (1 - 1.0 / double(j)) + (std::fabs(dj) + dm) * t2 / double(j)) * (1 + u32) + u32 * std::fabs(mj);
    const double p = std::fabs(dj * ej) * t3 + (std::fabs(dj) * dmj + std::fabs(ej) * dm + dm * dmj) * (1 + t3);
    s += dj * ej;
    fm = (fm + p) * (1 + u32) + u32 * s;
    m = mj, dm = dmj, amax = std::max(amax, std::fabs(xj));
  }
  // The doubles above err by at most n 2^-52 of what they hold: kept outside the bounds.
  const double nd = double(n);
  return {m, s, dm + nd * 0x1p-50 * amax, fm + nd * 0x1p-48 * (s + nd * amax * amax * 0x1p-50)};
}
}  // namespace

Entry layer_norm(DType in, DType out, double eps) { return layer_norm(in, out, eps, LayerNormForm{}); }

// Whole rows: a masked row of x (mean -Inf, x - mean NaN: y and rstd NaN; +Inf is its mirror, a NaN
// row one NaN). w and b are per-column, each output reads one value of each: no whole rows. Fills
// (x): tiny rows (where eps sits matters), a large offset (cancellation: the case a one-pass
// variance fails), magnitudes over the type's range.
Entry layer_norm(DType in, DType out, double eps, const LayerNormForm& form) {
  static const std::vector<Plant> ops =
      plants::standard({{"x", plants::kMaskRow}, {"w", plants::kNoRows}, {"b", plants::kNoRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kTiny, fills::kOffset, fills::kRange};
  const bool welford = form.variance == LayerNormForm::Variance::welford, stats = form.stats;
  const DType wt = form.weights.value_or(in);
  if (welford && stats) {
    e.spec.rule = "mean: where float64's mean is infinite, NaN holds too (Welford's update meets inf - inf)";
    e.rig.rules_per_output = true;
  }
  e.rig.prepare = [in, out, wt, stats](Case& c) {
    Dims d = dims_of(c);
    const size_t n = size_t(d.rows * d.cols);
    Buf x(c, "x", in, n, Role::in);
    Buf w(c, "w", wt, size_t(d.cols), Role::in);
    Buf b(c, "b", wt, size_t(d.cols), Role::in);
    Buf(c, "y", out, n, Role::out);
    if (stats) {
      Buf(c, "mean", DType::f32, size_t(d.rows), Role::out);
      Buf(c, "rstd", DType::f32, size_t(d.rows), Role::out);
    }
    Rng rx = rng_for(c, "x"), rw = rng_for(c, "w"), rb = rng_for(c, "b");
    fill_spread(w, rw, -2, 1);
    fill_spread(b, rb, -2, 1);
    if (c.fill().kind == FillKind::sums) {
      const double need = needed_rel(c);
      each_stream(rx, d.rows, [&](int64_t row, Rng& r) {
        auto v = zero_mean_row(r, d.cols, in, need);
        for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
      });
      return;
    }
    // range: (x - mean)^2 summed stays far inside fp32 (|x| < 2^51).
    if (!fill_dist(x, c, "x", d, true, {-50, 50})) fill_spread(x, rx, -4, 3);
    plant_if(x, c, ops, "x", d, true);
    plant_if(w, c, ops, "w", d, false);
    plant_if(b, c, ops, "b", d, false);
  };
  // want: the formula in float64 (two passes). The intervals are those of a two-pass fp32 kernel
  // (rows.hpp): mean = fp32(S / n) with |S - sum x| <= gamma(depth) sum|x|; the kernel's variance
  // (1/n) sum fp32(x - mean)^2 summed within gamma(depth), where (1/n) sum (x - mean)^2 = var +
  // (mu - mean)^2 exactly. Derived for two passes: a Welford kernel is held to it with the depth it
  // declares (its variance errs to first order in its running mean's error, so on the offset fill a
  // Welford chain needs more than its length: tests/rows/rows_layer_norm_test.cpp). Double's own
  // rounding is kept outside the intervals (gd).
  e.rig.reference = [eps, out, welford, stats](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    auto b = read(c, "b");
    const size_t n = x.size(), rows = size_t(d.rows);
    Expected y, mean, rstd;
    y.name = "y";
    mean.name = "mean";
    rstd.name = "rstd";
    const bool classes = c.fill().kind == FillKind::nonfinite;  // gate 1: classes alone
    for (auto [ex, k] : {std::pair{&y, n}, std::pair{&mean, rows}, std::pair{&rstd, rows}}) {
      ex->want.resize(k);
      ex->mag.resize(k);
      if (classes) continue;
      ex->lo.resize(k);
      ex->hi.resize(k);
    }
    const double g = c.fill().kind == FillKind::sums ? 0 : gamma(sums_depth(c));  // exact integer sums at gate 4
    const double after = after_sums_rel(c);
    const double cols = double(d.cols);
    const double gd = gamma(cols + 2, 0x1p-53);
    const Interval epsr = eps_range(eps);
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const double* xr = x.data() + row * d.cols;
        const size_t base = size_t(row * d.cols), ri = size_t(row);
        double s = 0, a = 0, s2 = 0;
        for (int64_t j = 0; j < d.cols; ++j) s += xr[j], a += std::fabs(xr[j]);
        const double mu = s / cols;
        for (int64_t j = 0; j < d.cols; ++j) s2 += (xr[j] - mu) * (xr[j] - mu);
        const double var = s2 / cols, rs = 1 / std::sqrt(var + eps);
        mean.want[ri] = mu, mean.mag[ri] = a / cols;
        rstd.want[ri] = rs, rstd.mag[ri] = rs / 2;
        for (int64_t j = 0; j < d.cols; ++j) {
          const double p = (xr[j] - mu) * rs * w[size_t(j)];
          y.want[base + j] = p + b[size_t(j)];
          y.mag[base + j] = std::fabs(p) / 2 + rs * std::fabs(w[size_t(j)]) * a / cols;
        }
        if (classes) continue;
        // The kernel's mean, and how far it may sit from the true mean (mu within emu of it).
        const double emu = gd * a / cols;
        Interval mk = (Interval::point(s).widen(0, (g + gd) * a) / Interval::point(cols)).rounded(DType::f32);
        const double dmu = (std::max(mu - mk.lo, mk.hi - mu) + emu) * (1 + 0x1p-50);
        // The kernel's variance: [var, var + dmu^2], each x - mean rounded once (1 +- u), the sum.
        const double vlo = std::max(0.0, var * (1 - gd) - emu * emu), vhi = var * (1 + gd) + dmu * dmu;
        Interval vk = Interval::of(vlo * (1 - u32) * (1 - u32) * (1 - g), vhi * (1 + u32) * (1 + u32) * (1 + g))
                          .widen(0x1p-50, 0x1p-148);
        if (welford) {  // its own bound (welford_bound), one chain: the spec's depth does not enter
          const Welford wb = welford_bound(xr, d.cols);
          mk = Interval::of(wb.mean - wb.dm, wb.mean + wb.dm).widen(0x1p-52).rounded(DType::f32);
          vk = (Interval::of(std::max(0.0, wb.m2 - wb.fm), wb.m2 + wb.fm) / Interval::point(cols)).widen(u32, 0x1p-149);
        }
        const Interval r = Interval::point(1) / iv_sqrt(vk + epsr);  // positive
        const Interval rk = r.widen(after);
        auto set = [](Expected& ex, size_t i, const Interval& v) {
          const double want = ex.want[i];
          const bool fin = std::isfinite(want);  // a non-finite want is checked by class alone
          ex.lo[i] = !fin ? want : v.nan ? -INFINITY : v.lo;
          ex.hi[i] = !fin ? want : v.nan ? INFINITY : v.hi;
        };
        set(mean, ri, mk);
        set(rstd, ri, rk);
        // y: fp32(x - mean) at each end of the mean (directed: the difference may be inexact in
        // double), times rstd and w in double (each end's two roundings inside the 2^-50 added to
        // the spec's), + b (one double rounding an end, stepped past), then fp32's and out's roundings.
        const double rel = after + 0x1p-50;
        for (int64_t j = 0; j < d.cols; ++j) {
          const double wj = w[size_t(j)], bj = b[size_t(j)];
          const double dl = to_f32(xr[j] - mk.hi, Round::down), dh = to_f32(xr[j] - mk.lo, Round::up);
          const double e0 = dl * (dl >= 0 ? r.lo : r.hi) * wj, e1 = dh * (dh >= 0 ? r.hi : r.lo) * wj;
          const double pl = std::min(e0, e1), ph = std::max(e0, e1);
          double yl = (pl - std::fabs(pl) * rel - 0x1p-140) + bj, yh = (ph + std::fabs(ph) * rel + 0x1p-140) + bj;
          yl -= std::fabs(yl) * 0x1p-52, yh += std::fabs(yh) * 0x1p-52;
          set(y, base + j, Interval::of(float(yl), float(yh)).rounded(out));
        }
      }
    }, std::max<int64_t>(1, 4096 / d.cols));
    if (welford) mean.rule = "where float64's mean is infinite, NaN holds too", mean.rule_nonfinite = true;
    if (!stats) return results(y);
    return results(y, mean, rstd);
  };
  // Both sums replayed in format f, order o: sum x, then sum (x - mean)^2 around the replay's mean.
  e.rig.simulate = [eps, stats](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    auto b = read(c, "b");
    std::vector<double> y(x.size()), mean(size_t(d.rows)), rstd(size_t(d.rows));
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      std::vector<double> dv(size_t(d.cols)), sq(size_t(d.cols));
      for (int64_t row = r0; row < r1; ++row) {
        const double* xr = x.data() + row * d.cols;
        const double mu = replay_sum(xr, size_t(d.cols), f, o) / double(d.cols);
        for (int64_t j = 0; j < d.cols; ++j) dv[size_t(j)] = xr[j] - mu, sq[size_t(j)] = dv[size_t(j)] * dv[size_t(j)];
        const double rs = 1 / std::sqrt(replay_sum(sq.data(), sq.size(), f, o) / double(d.cols) + eps);
        for (int64_t j = 0; j < d.cols; ++j) y[size_t(row * d.cols + j)] = dv[size_t(j)] * rs * w[size_t(j)] + b[size_t(j)];
        mean[size_t(row)] = mu, rstd[size_t(row)] = rs;
      }
    }, std::max<int64_t>(1, 4096 / d.cols));
    if (!stats) return std::vector<std::vector<double>>{y};
    return std::vector<std::vector<double>>{y, mean, rstd};
  };
  return e;
}

}  // namespace kc::rows
