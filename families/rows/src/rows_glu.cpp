// rows::geglu and rows::swiglu: MLX's op-by-op activation rows, every op rounded to bf16. Each output
// is checked at those rounding points: want is the formula in float64 rounded to bf16 at each
// point, and [lo, hi] carries an interval through the steps, each fp32 step widened by its rounding
// (or its library function's ulps), then rounded to bf16 as the kernel rounds.
#include <cmath>
#include <functional>

#include "kc/parallel.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {

// What the family assumes of erff / expf when a spec does not declare their ulps: 2, as CUDA's
// documents (glibc's are within 1).
constexpr double kFunctionUlps = 2;

double bf(double v) { return round_to(DType::bf16, v); }
Interval bfi(const Interval& v) { return v.rounded(DType::bf16); }
// A constant as a kernel may hold it: exact, or rounded to fp32 either way.
Interval constant(double k) {
  return Interval::of(std::min(k, double(to_f32(k, Round::down))), std::max(k, double(to_f32(k, Round::up))));
}

struct Glu {
  std::function<double(double)> act;                         // bf16(act(g)) in float64 at its points
  std::function<Interval(const Case&, const Interval&)> act_iv;  // the same as an interval
};

Entry glu(const Glu& f) {
  // Elementwise: a whole row is only many single plants, so no whole-row plants. Fills (g): zeros of
  // both signs, tiny values (the curve near 0), magnitudes from 2^-30 to 2^30 (exp and erf saturate).
  static const std::vector<Plant> ops = plants::standard({{"g", plants::kNoRows}, {"u", plants::kNoRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kZeros, fills::kTiny, fills::kRange};
  e.rig.prepare = [](Case& c) {
    Dims d = dims_of(c);
    size_t n = size_t(d.rows * d.cols);
    Buf g(c, "g", DType::bf16, n, Role::in);
    Buf u(c, "u", DType::bf16, n, Role::in);
    Buf(c, "y", DType::bf16, n, Role::out);
    Rng rg = rng_for(c, "g"), ru = rng_for(c, "u");
    // |g| < 8, down to 2^-5: gelu / silu's curved part and both tails.
    if (!fill_dist(g, c, "g", d, true, {-30, 30})) fill_spread(g, rg, -5, 2);
    fill_spread(u, ru, -3, 2);
    plant_if(g, c, ops, "g", d, true);
    plant_if(u, c, ops, "u", d, true);
  };
  e.rig.reference = [f](const Case& c) {
    auto g = read(c, "g");
    auto u = read(c, "u");
    Expected y;
    y.name = "y";
    y.want.resize(g.size());
    y.mag.assign(g.size(), 0.0);
    // Gate 1 compares classes alone: its fills skip the intervals (most of this reference's time).
    const bool classes = c.fill().kind == FillKind::nonfinite;
    if (!classes) {
      y.lo.resize(g.size());
      y.hi.resize(g.size());
    }
    // g is bf16: its activation (value and interval) depends on its 16 bits alone, so each of the
    // 65536 values is worked out once (large shapes repeat them millions of times): first which
    // occur, then their activations, then every output, each step on every core.
    struct Act {
      double v = 0;
      Interval iv;
    };
    const int64_t n = int64_t(g.size());
    std::vector<uint16_t> bits(g.size());
    kc::parallel_for(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) bits[size_t(i)] = to_bf16(g[size_t(i)], Round::nearest).bits;
    }, 4096);
    std::vector<char> used(65536, 0);
    for (uint16_t b : bits) used[b] = 1;
    std::vector<Act> acts(65536);
    kc::parallel_for(65536, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        if (!used[size_t(b)]) continue;
        const double gv = from_bf16(bf16{uint16_t(b)});
        acts[size_t(b)] = {f.act(gv), classes ? Interval::point(0) : f.act_iv(c, Interval::point(gv))};
      }
    }, 256);
    kc::parallel_for(n, [&](int64_t lo, int64_t hi) {
    for (int64_t ii = lo; ii < hi; ++ii) {
      const size_t i = size_t(ii);
      const Act& a = acts[bits[i]];
      double w = bf(a.v * u[i]);
      y.want[i] = w;
      if (classes) continue;
      if (!std::isfinite(w)) {  // gate 1 compares classes; a non-finite want is its own interval
        y.lo[i] = y.hi[i] = w;
        continue;
      }
      Interval iv = bfi(fp32_step(a.iv * Interval::point(u[i])));
      y.lo[i] = iv.nan ? -INFINITY : iv.lo;
      y.hi[i] = iv.nan ? INFINITY : iv.hi;
    }
    }, 4096);
    return results(y);
  };
  return e;
}

}  // namespace

// gelu(g) = bf16(bf16(0.5 g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2)))))
Entry geglu() {
  Glu f;
  f.act = [](double g) {
    double e = bf(std::erf(bf(g * M_SQRT1_2)));
    return bf(bf(0.5 * g) * bf(1 + e));
  };
  f.act_iv = [](const Case& c, const Interval& g) {
    double erf_ulps = declared_ulps(c, "erff", kFunctionUlps);
    Interval a = bfi(fp32_step(g * constant(M_SQRT1_2)));
    Interval e = bfi(fp32_step(iv_erf(a), erf_ulps));
    Interval p = bfi(fp32_step(Interval::point(1) + e));
    Interval h = bfi(fp32_step(Interval::point(0.5) * g));
    return bfi(fp32_step(h * p));
  };
  return glu(f);
}

// silu(g) = bf16(g * bf16(sigmoid(g))), sigmoid(g) = bf16(1 / bf16(1 + bf16(exp(-g))))
Entry swiglu() {
  Glu f;
  f.act = [](double g) {
    double s = bf(1 / bf(1 + bf(std::exp(-g))));
    return bf(g * s);
  };
  f.act_iv = [](const Case& c, const Interval& g) {
    double exp_ulps = declared_ulps(c, "expf", kFunctionUlps);
    Interval ex = bfi(fp32_step(iv_exp(Interval::point(0) - g), exp_ulps));
    Interval d = bfi(fp32_step(Interval::point(1) + ex));
    Interval s = bfi(fp32_step(Interval::point(1) / d));
    return bfi(fp32_step(g * s));
  };
  return glu(f);
}

}  // namespace kc::rows
