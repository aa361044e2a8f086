// Track's arithmetic: each operation's value in float64, and the bound of the fp32 kernel's error on
// it. E = a + gamma * m bounds the error of an operand; an operation carries its operands' E
// through itself exactly (the products of errors included, so the bound is no first-order guess)
// and adds its own rounding, u on the magnitude it rounds, unless fp32 holds the result of exact
// operands exactly. m keeps the first-order share of the inexact sums (gate 4 drops gamma(depth) on
// it where those are exact); a is the rest. A pinned number (past a rounding point) is an interval.
#include <algorithm>
#include <cmath>

#include "kc/families/blocks.hpp"
#include "run.hpp"

namespace kc::formula {

namespace detail {
thread_local double tl_gamma = 0;
}  // namespace detail

namespace {

constexpr double kSub = 0x1p-150;  // fp32's absolute rounding floor (half its subnormal spacing)

double err(const Track& x) { return x.a + detail::tl_gamma * x.m; }
bool fits(double v) { return std::isnan(v) || double(float(v)) == v; }

Interval as_interval(const Track& x) {
  if (x.pinned) return x.iv;
  const double e = err(x);
  if (!std::isfinite(x.v) || e == 0) return Interval::point(x.v);
  return Interval::of(x.v - e, x.v + e);
}

// A result: non-finite values keep no error (gate 1 compares their class); a result of exact
// operands that fp32 holds is exact; otherwise one rounding on what the kernel rounds.
Track finish(Track r, bool exact_operands) {
  if (!std::isfinite(r.v)) {
    r.m = r.a = 0;
    r.exact = fits(r.v) && exact_operands;
    return r;
  }
  r.exact = exact_operands && fits(r.v);
  if (!r.exact) r.a += 0x1p-24 * (std::fabs(r.v) + err(r)) + kSub;
  return r;
}

Track pinned(double v, const Interval& iv) {
  Track r;
  r.v = v;
  r.pinned = true;
  r.exact = false;
  r.iv = iv;
  return r;
}

}  // namespace

Track::Track(double c) : v(c), iv(Interval::point(c)) {
  if (fits(c) || !std::isfinite(c)) return;
  // The kernel holds fp32(c), rounded either way: off by less than its spacing there.
  exact = false;
  a = std::fabs(double(to_f32(c, Round::up)) - double(to_f32(c, Round::down)));
  iv = Interval::of(std::min(c, double(to_f32(c, Round::down))), std::max(c, double(to_f32(c, Round::up))));
}

Track Track::input(double x) {
  Track t;
  t.v = x;
  t.iv = Interval::point(x);
  return t;
}

Track operator+(const Track& x, const Track& y) {
  if (x.pinned || y.pinned) return pinned(x.v + y.v, blocks::fp32_step(as_interval(x) + as_interval(y)));
  Track r;
  r.v = x.v + y.v;
  r.m = x.m + y.m;
  r.a = x.a + y.a;
  return finish(r, x.exact && y.exact);
}

Track operator-(const Track& x) {
  Track r = x;
  r.v = -x.v;
  if (x.pinned) r.iv = Interval::point(0) - x.iv;
  return r;
}

Track operator-(const Track& x, const Track& y) { return x + (-y); }

Track operator*(const Track& x, const Track& y) {
  if (x.pinned || y.pinned) return pinned(x.v * y.v, blocks::fp32_step(as_interval(x) * as_interval(y)));
  Track r;
  r.v = x.v * y.v;
  const double ax = std::fabs(x.v), ay = std::fabs(y.v);
  r.m = ay * x.m + ax * y.m;
  r.a = ay * x.a + ax * y.a + err(x) * err(y);
  return finish(r, x.exact && y.exact);
}

Track operator/(const Track& x, const Track& y) {
  if (x.pinned || y.pinned) return pinned(x.v / y.v, blocks::fp32_step(as_interval(x) / as_interval(y)));
  Track r;
  r.v = x.v / y.v;
  if (!std::isfinite(r.v)) return finish(r, x.exact && y.exact);
  const double ey = err(y), dy = std::fabs(y.v);
  if (!(ey < dy)) {  // the divisor's error may reach 0: no bound
    r.a = INFINITY;
    r.exact = false;
    return r;
  }
  const double total = (err(x) + std::fabs(r.v) * ey) / (dy - ey);
  r.m = (x.m + std::fabs(r.v) * y.m) / dy;
  r.a = std::max(total - detail::tl_gamma * r.m, 0.0);
  return finish(r, x.exact && y.exact);
}

namespace detail {

// A library function f of x: `lip` bounds |f'| over x's error interval, `ulps` its own error.
Track apply(const Track& x, double v, double lip, double d1, double ulps) {
  Track r;
  r.v = v;
  if (!std::isfinite(v) || !std::isfinite(x.v)) return finish(r, x.exact);
  r.m = d1 * x.m;
  r.a = std::max(lip * err(x) - tl_gamma * r.m, 0.0);
  if (!std::isfinite(lip)) r.a = INFINITY;
  r.exact = false;
  r.a += ulps * 0x1p-23 * (std::fabs(v) + lip * err(x)) + ulps * 0x1p-149;
  return r;
}

Track pin(double v, const Interval& iv) { return pinned(v, iv); }
Interval interval_of(const Track& x) { return as_interval(x); }
double error_of(const Track& x) { return err(x); }
Track make_finish(Track r, bool exact) { return finish(r, exact); }

}  // namespace detail

}  // namespace kc::formula
