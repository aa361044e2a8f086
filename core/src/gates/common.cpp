// What the gates share: running one case, the error bound, comparing outputs with float64.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gates.hpp"
#include "kc/numeric.hpp"

namespace kc::detail {

uint64_t GateCtx::case_seed(Gate g, const Shape& s, const Fill& f) const {
  uint64_t h = opt.seed ^ 0xcbf29ce484222325ull;
  auto mix = [&](std::string_view t) {
    for (char ch : t) h = (h ^ uint8_t(ch)) * 0x100000001b3ull;
  };
  mix(entry.spec.name);
  mix(s.str());
  mix(fmt::format("{}:{}:{}:{}", int(g), int(f.kind), f.plant, f.pos));
  return h;
}

std::vector<Shape> extreme_shapes(const Spec& spec) {
  Shape lo, hi;
  for (const auto& d : spec.dims) {
    lo.set(d.name, *std::min_element(d.served.begin(), d.served.end()));
    hi.set(d.name, *std::max_element(d.served.begin(), d.served.end()));
  }
  if (lo == hi) return {lo};
  return {lo, hi};
}

Case prepare_case(GateCtx& ctx, Gate g, const Shape& s, Fill f) {
  Case c(s, f, ctx.case_seed(g, s, f));
  c.spec = &ctx.entry.spec;
  ctx.entry.rig.prepare(c);
  return c;
}

Ran run_case(GateCtx& ctx, Gate g, const Shape& s, Fill f, const std::function<void(const Buffers&)>* fn,
             const Case* inputs) {
  Ran r{inputs ? *inputs : prepare_case(ctx, g, s, f), std::nullopt};
  DeviceCase dev(ctx.backend, ctx.entry.spec, r.c);
  SyncResult res = dev.launch(fn ? *fn : ctx.entry.rig.run, ++ctx.run, ctx.opt.timeout_s);
  if (res.kind != SyncResult::ok) {
    Outcome o;
    o.failed = true;
    o.why = res.kind == SyncResult::hang ? Why::hang : Why::fault;
    o.shape = s.str();
    o.detail = res.error;
    std::string rec = ctx.backend.recover();
    if (!rec.empty()) o.detail += "; the device could not be recovered: " + rec;
    o.fail_shape = s;
    o.fail_fill = f;
    r.problem = o;
    return r;
  }
  dev.fetch(r.c);
  auto guards = dev.broken_guards();
  if (!guards.empty()) {
    Outcome o;
    o.failed = true;
    o.why = Why::guard_broken;
    o.shape = s.str();
    o.detail = guards.front() + (guards.size() > 1 ? fmt::format(" (and {} more)", guards.size() - 1) : "");
    o.fail_shape = s;
    o.fail_fill = f;
    r.problem = o;
  }
  return r;
}

double error_bound(const Spec& spec, DType out, double want, double mag, const Shape& s, bool with_gamma) {
  double aw = std::fabs(want), uo = half_ulp(out), floor = half_ulp_floor(out);
  double rest = 0;
  if (spec.sums) {
    const Accum& a = *spec.sums;
    double ulps = 0;
    for (const auto& x : a.ulps) ulps += x.ulps;
    rest = aw * (a.ops * u32 + a.mids * uo + ulps * u32);
    if (with_gamma) rest += gamma(a.depth(s)) * std::fabs(mag);
  }
  // The fp32 result's error also passes through the final rounding: scale it by (1 + u_out).
  return aw * uo + rest * (1 + uo) + floor;
}

static std::string fmtv(double v) { return fmt::format("{:.9g}", v); }

Outcome compare(const Spec& spec, const Case& c, const std::vector<Expected>& exp, bool with_gamma) {
  Outcome o;
  o.shape = c.shape().str();
  double worst = 0;
  for (const auto& e : exp) {
    const HostBuffer& hb = c.buffer(e.name);
    if (hb.decl.role == Role::in)
      throw Error(fmt::format("{}: reference() names '{}', which is an input", spec.name, e.name));
    if (e.want.size() != hb.decl.count || (!e.mag.empty() && e.mag.size() != hb.decl.count) ||
        (!e.lo.empty() && (e.lo.size() != hb.decl.count || e.hi.size() != hb.decl.count)))
      throw Error(fmt::format("{}: reference() for '{}' has {} values, the buffer {}", spec.name, e.name,
                              e.want.size(), hb.decl.count));
    bool iv = !e.lo.empty();
    for (size_t i = 0; i < hb.decl.count; ++i) {
      double got = load_as_double(hb.bytes.data(), hb.decl.type, i), w = e.want[i];
      double ratio;
      std::string what;
      if (iv) {
        double lo = e.lo[i], hi = e.hi[i];
        bool ok = std::isnan(w) ? std::isnan(got) : (got >= lo && got <= hi);
        if (ok) continue;
        ratio = std::isnan(got) ? INFINITY : 1 + std::max(lo - got, got - hi) / std::max(hi - lo, 1e-300);
        what = fmt::format("{}[{}] want {} in [{}, {}] got {}", e.name, i, fmtv(w), fmtv(lo), fmtv(hi), fmtv(got));
        if (ratio > worst || !o.failed) {
          worst = std::max(worst, ratio);
          o.failed = true;
          o.why = Why::interval;
          o.detail = what;
        }
        continue;
      }
      if (!std::isfinite(w) || !std::isfinite(got)) {
        if (fclass(w) == fclass(got) && (std::isnan(w) || w == got)) continue;
        ratio = INFINITY;
        what = fmt::format("{}[{}] want {} got {}", e.name, i, fmtv(w), fmtv(got));
      } else {
        double b = error_bound(spec, hb.decl.type, w, e.mag.empty() ? 0 : e.mag[i], c.shape(),
                               with_gamma || !e.exact_sums);
        double err = std::fabs(got - w);
        if (err <= b) continue;
        ratio = b > 0 ? err / b : INFINITY;
        what = fmt::format("{}[{}] want {} got {} |err| {:.3g} > bound {:.3g} ({:.3g}x)", e.name, i, fmtv(w), fmtv(got),
                           err, b, ratio);
      }
      if (!o.failed || ratio > worst) {
        worst = ratio;
        o.failed = true;
        o.why = Why::bound;
        o.detail = what;
      }
    }
  }
  if (o.failed) o.fail_shape = c.shape(), o.fail_fill = c.fill();
  return o;
}

}  // namespace kc::detail
