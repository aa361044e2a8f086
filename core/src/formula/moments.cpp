// A row's second moment around a mean the kernel computed: two passes (Ctx::centred_squares) and
// Welford's one-pass update (Ctx::welford), each with the interval proven for its form. Track's own
// arithmetic would carry the mean's error E through every x - mean to first order (about
// 2 E sum|x - mean|); both forms here keep what the algebra of each allows.
#include <algorithm>
#include <climits>
#include <cmath>

#include "kc/families/blocks.hpp"
#include "run.hpp"

namespace kc::formula::detail {

Track pin(double v, const Interval& iv);  // track.cpp

namespace {

// Welford's update in one fp32 chain, on a finite row: the kernel's mean lies within dm of the row's
// mean, its m2 within fm of sum (x - mean)^2. With d_j = x_j - M_{j-1}, e_j = x_j - M_j (M_j the
// exact running mean, S_j = S_{j-1} + d_j e_j the exact m2) and each fp32 operation's rounding
// (1 + eps), |eps| <= u: the kernel's running mean errs by D_j <= (D_{j-1} (1 - 1/j) + (|d_j| +
// D_{j-1}) (2u + u^2) / j)(1 + u) + u |M_j| (its d and d / j roundings, on the error it carries, then
// the sum's), and each m2 term d^ e^ (1 + eps) by P_j <= |d_j e_j| t3 + (|d_j| D_j + |e_j| D_{j-1} +
// D_{j-1} D_j)(1 + t3), t3 = (1 + u)^3 - 1; the running m2 by F_j <= (F_{j-1} + P_j)(1 + u) + u S_j,
// from j = 2 (the first step is exact). Its first-order term in D is the one two passes do not have.
struct WelfordBound {
  double mean, m2, dm, fm;
};

WelfordBound welford_bound(const double* x, int64_t n) {
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

double centred_squares(const double* x, int64_t n, double mean) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j) s += (x[j] - mean) * (x[j] - mean);
  return s;
}

// The kernel's mean m^ lies within dmu of mu (the row's true mean): its own bound E about float64's
// mean, and float64's rounding of it (emu). sum (x - m^)^2 = sum (x - mu)^2 + n (mu - m^)^2 lies in
// [S, S + n dmu^2], S within gd of float64's sum around its own mean (that sum is S + n (mu -
// mean)^2, at most n emu^2 above S). Each fp32(x - m^) and its square is rounded (1 +- u)^3, the
// nonnegative squares summed within gamma(depth) of their sum, each underflow below 2^-149.
Track centred_squares(const double* x, int64_t n, const Track& mean, double g) {
  const double s2 = centred_squares(x, n, mean.v);
  if (!std::isfinite(s2)) return pin(s2, Interval::point(s2));
  if (mean.exact && !mean.pinned) {  // exact in any order: as f.sum finds a sum exact
    bool exact = true;
    int grid = INT_MAX;
    for (int64_t j = 0; j < n && exact; ++j) {
      const double d = x[j] - mean.v, q = d * d;
      exact = double(float(d)) == d && double(float(q)) == q;
      grid = std::min(grid, low_bit(q));
    }
    if (exact && (grid == INT_MAX || (grid >= -149 && s2 <= std::ldexp(1.0, 24 + grid))))
      return pin(s2, Interval::point(s2));
  }
  double a = 0;
  for (int64_t j = 0; j < n; ++j) a += std::fabs(x[j]);
  const double nd = double(n), gd = gamma(nd + 2, 0x1p-53), emu = gd * a / nd;
  const Interval m = interval_of(mean);
  const double dmu = (std::max(mean.v - m.lo, m.hi - mean.v) + emu) * (1 + 0x1p-50);
  const double lo = std::max(0.0, s2 * (1 - gd) - nd * emu * emu), hi = s2 * (1 + gd) + nd * dmu * dmu;
  const double dn = (1 - u32) * (1 - u32) * (1 - u32) * (1 - g), up = (1 + u32) * (1 + u32) * (1 + u32) * (1 + g);
  return pin(s2, Interval::of(std::max(0.0, lo * dn - nd * 0x1p-149), hi * up + nd * 0x1p-149).widen(0x1p-50, 0x1p-148));
}

// float64's values are the formula's (two passes); the intervals are the chain's, about its own
// float64 replay (welford_bound), the mean's rounded to fp32 as the kernel holds it.
Moments<Track> welford(const double* x, int64_t n) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j) s += x[j];
  const double mu = s / double(n), s2 = centred_squares(x, n, mu);
  if (!std::isfinite(s2)) return {pin(mu, Interval::point(mu)), pin(s2, Interval::point(s2))};
  const WelfordBound wb = welford_bound(x, n);
  const Interval mk = Interval::of(wb.mean - wb.dm, wb.mean + wb.dm).widen(0x1p-52).rounded(DType::f32);
  return {pin(mu, mk), pin(s2, Interval::of(std::max(0.0, wb.m2 - wb.fm), wb.m2 + wb.fm))};
}

}  // namespace kc::formula::detail
