// What the gates share: running one case, the error bound, comparing outputs with float64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "gates.hpp"
#include "margin.hpp"
#include "kc/formula.hpp"
#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/ref_device.hpp"
#include <mutex>
#include <optional>

namespace kc::detail {

uint64_t GateCtx::case_seed(Gate g, const Shape& s, const Fill& f) const {
  uint64_t h = seed ^ 0xcbf29ce484222325ull;
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

// FNV-style, a word at a time, over one piece of a buffer.
static uint64_t piece_hash(const std::byte* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  return h;
}

uint64_t output_hash(const Case& c) {
  // Outputs run to gigabytes: pieces of a fixed size hashed on every core, then their hashes in
  // order (the value does not depend on the core count; only equality between two runs is used).
  constexpr size_t piece = size_t(1) << 20;
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& b : c.buffers()) {
    if (b.decl.role == Role::in) continue;
    const size_t n = b.bytes.size();
    std::vector<uint64_t> ph((n + piece - 1) / piece);
    parallel_for(int64_t(ph.size()), [&](int64_t lo, int64_t hi) {
      for (int64_t k = lo; k < hi; ++k)
        ph[size_t(k)] = piece_hash(b.bytes.data() + size_t(k) * piece, std::min(piece, n - size_t(k) * piece));
    }, 8);
    for (uint64_t v : ph) {
      h = (h ^ v) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    h = (h ^ n) * 0x100000001b3ull;
  }
  return h;
}

std::vector<Shape> form_extreme_shapes(const GateCtx& ctx, std::vector<Shape> shapes) {
  const Spec& spec = ctx.entry.spec;
  if (shapes.empty()) shapes = extreme_shapes(spec);
  const auto& pick = ctx.entry.rig.pick;
  if (!pick) return shapes;
  std::vector<std::string> taken;
  for (const auto& s : shapes) taken.push_back(pick(s));
  // Gate 3's choice among the searched shapes inside the served ranges (a fill may need a dimension's
  // served least, as gate 4's do), for each form the extreme shapes do not take.
  auto served = [&](const Shape& s) { return spec.within_served(s); };
  for (const auto& [s, f] : form_shapes(spec, pick, shapes, served).added)
    if (std::find(taken.begin(), taken.end(), f) == taken.end()) shapes.push_back(s);
  return shapes;
}

Case prepare_case(GateCtx& ctx, Gate g, const Shape& s, Fill f) {
  Timed t(ctx.phases.inputs);
  Case c(s, f, ctx.case_seed(g, s, f));
  c.spec = &ctx.entry.spec;
  ctx.entry.rig.prepare(c);
  return c;
}

Ran run_case(GateCtx& ctx, Gate g, const Shape& s, Fill f, const std::function<void(const Buffers&)>* fn,
             const Case* inputs) {
  return run_case(ctx, s, f, inputs ? Case(*inputs) : prepare_case(ctx, g, s, f), fn);
}

Ran run_case(GateCtx& ctx, const Shape& s, Fill f, Case&& inputs, const std::function<void(const Buffers&)>* fn) {
  Ran r{std::move(inputs), std::nullopt};
  auto t0 = Clock::now();
  DeviceCase dev(ctx.backend, ctx.entry.spec, r.c);
  ctx.phases.upload += seconds_since(t0);
  t0 = Clock::now();
  SyncResult res = fn ? dev.launch(*fn, ++ctx.run, ctx.opt.timeout_s) : launch_entry(ctx, dev, s);
  ctx.phases.kernel += seconds_since(t0);
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
  t0 = Clock::now();
  dev.fetch(r.c);
  auto guards = dev.broken_guards();
  ctx.phases.fetch += seconds_since(t0);
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

Coeffs error_coeffs(const Spec& spec, DType out, const Shape& s, bool with_gamma) {
  double uo = half_ulp(out);
  Coeffs c;
  c.uo = uo;
  c.floor = half_ulp_floor(out);
  c.r = uo;
  if (spec.sums) {
    const Accum& a = *spec.sums;
    double ulps = 0, read = 0;
    for (const auto& x : a.ulps) ulps += x.ulps, read += formula::reads_ulp(x.function) ? x.ulps : 0;
    // A library function's documented ulp is one fp32 ulp of its result, up to 2u of it (at the
    // bottom of a binade): 2u an ulp, as the rounding-point intervals count it (fp32_step).
    // The fp32 result's error also passes through the final rounding: scaled by (1 + u_out).
    c.a = (a.ops * u32 + a.mids * uo + ulps * 2 * u32) * (1 + uo);
    c.ulps_a = read * 2 * u32 * (1 + uo);
    if (with_gamma && a.summed && a.depth) c.g = gamma(a.depth(s)) * (1 + uo);
  }
  return c;
}

// A code output is checked by its interval alone (compare refuses one without): the bound's type is
// its buffer's only where it has none.
DType rounding_type(const HostBuffer& hb, const Expected& e) {
  return e.codes == Codes::none ? hb.decl.type : DType::u8;
}

double error_bound(const Spec& spec, DType out, double want, double mag, const Shape& s, bool with_gamma,
                   double scale) {
  return error_coeffs(spec, out, s, with_gamma).at(want, mag, scale);
}

double bound_at(const Spec& spec, const HostBuffer& hb, const Expected& e, size_t i, const Shape& s, bool with_gamma) {
  return error_coeffs(spec, rounding_type(hb, e), s, with_gamma || !e.exact_sums).at(e, i);
}

static std::string fmtv(double v) { return fmt::format("{:.9g}", v); }

namespace {
struct Worst {
  bool failed = false;
  double ratio = 0;
  size_t i = 0;
  Why why = Why::none;
  size_t count = 0;  // outputs that failed
};

// A buffer's worst failing output, and how many of its outputs failed.
struct Failing {
  double ratio;
  Why why;
  std::string text;
};
}  // namespace

// A buffer whose answers a device keeps (kc/ref_device.hpp), checked there: the failing text and the
// margin as the host's pass below gives them, from the device's counts, worst and nearest outputs
// and the answers at those two read back. nullopt where it passed (why: "" or what stopped the device).
static std::optional<Failing> compare_kept(const RefResident& kept, const Expected& e, const HostBuffer& hb,
                                           const Case& c, const Coeffs& k, std::optional<Margin>& margin,
                                           std::string& why) {
  RefChecked r;
  why = kept.check(hb.bytes.data(), hb.decl.type, RefBound{k.r, k.a, k.g, k.floor}, r);
  if (!why.empty()) return std::nullopt;
  auto answer = [&](uint64_t i, double& want, double& mag) {
    if (std::string bad = kept.at(i, want, mag); !bad.empty())
      throw Error(fmt::format("the device that kept the answers for '{}' cannot read output {}: {}", e.name, i, bad));
  };
  if (r.near_ratio >= 0) {
    double want = 0, mag = 0;
    answer(r.near, want, mag);
    Margin m;
    m.ratio = r.near_ratio;
    m.output = e.name;
    m.index = size_t(r.near);
    m.want = want;
    m.got = load_as_double(hb.bytes.data(), hb.decl.type, m.index);
    m.bound = k.at(want, mag);
    m.shape = c.shape().str();
    m.fill = c.fill().dist;
    keep_worst(margin, m);
  }
  if (!r.outside) return std::nullopt;
  const size_t i = size_t(r.worst);
  double want = 0, mag = 0;
  answer(r.worst, want, mag);
  const double got = load_as_double(hb.bytes.data(), hb.decl.type, i);
  std::string text;
  if (!std::isfinite(want) || !std::isfinite(got))
    text = fmt::format("{}[{}] want {} got {}", e.name, i, fmtv(want), fmtv(got));
  else
    text = fmt::format("{}[{}] want {} got {} |err| {:.3g} > bound {:.3g} ({:.3g}x)", e.name, i, fmtv(want), fmtv(got),
                       std::fabs(got - want), k.at(want, mag), r.worst_ratio);
  if (hb.decl.count > 1) text += fmt::format(", {} of {} {} outside", r.outside, hb.decl.count, e.name);
  return Failing{r.worst_ratio, Why::bound, std::move(text)};
}

Outcome compare(const Spec& spec, const Case& c, const std::vector<Expected>& exp, bool with_gamma,
                const Shape* bounds_at) {
  const Shape& bs = bounds_at ? *bounds_at : c.shape();
  Outcome o;
  o.shape = c.shape().str();
  std::optional<Margin> margin;
  std::vector<Failing> failing;  // one a failing buffer
  std::vector<Expected> fetched;  // answers a device kept and could not check, read back (rare)
  for (const auto& e0 : exp) {
    const HostBuffer& hb = c.buffer(e0.name);
    if (hb.decl.role == Role::in)
      throw Error(fmt::format("{}: reference() names '{}', which is an input", spec.name, e0.name));
    const RefResident* kept = nullptr;
    if (e0.want.empty() && hb.decl.count)
      if (const ResidentScope* scope = ResidentScope::current()) kept = scope->find(hb.bytes.data());
    if (kept) {
      const Coeffs k = error_coeffs(spec, hb.decl.type, bs, with_gamma || !e0.exact_sums);
      std::string why = kept->count() == hb.decl.count && e0.codes == Codes::none && e0.err.empty()
                            ? "" : "it keeps another count or form";
      if (why.empty()) {
        if (std::optional<Failing> f = compare_kept(*kept, e0, hb, c, k, margin, why)) failing.push_back(std::move(*f));
        if (why.empty()) continue;
      }
      // The device could not check: its answers come to the host, checked as any reference's.
      Expected& e = fetched.emplace_back(e0);
      e.want.resize(hb.decl.count);
      e.mag.resize(hb.decl.count);
      if (std::string bad = kept->fetch(e.want.data(), e.mag.data()); !bad.empty())
        throw Error(fmt::format("{}: the device that kept the answers for '{}' cannot check them ({}) nor return them: {}",
                                spec.name, e0.name, why, bad));
    }
    const Expected& e = kept ? fetched.back() : e0;
    const size_t count = output_count(hb, e.codes);
    if (e.want.size() != count || (!e.mag.empty() && e.mag.size() != count) || (!e.scale.empty() && e.scale.size() != count) ||
        (!e.err.empty() && e.err.size() != count) || (!e.lo.empty() && (e.lo.size() != count || e.hi.size() != count)))
      throw Error(fmt::format("{}: reference() for '{}' has {} values, the buffer {}", spec.name, e.name,
                              e.want.size(), count));
    const bool iv = !e.lo.empty();
    if (e.codes != Codes::none && !iv)
      throw Error(fmt::format("{}: '{}' holds {} codes: its reference needs intervals (Expected::lo, hi) in the "
                              "format's rounding", spec.name, e.name, codes_name(e.codes)));
    const Coeffs k = error_coeffs(spec, rounding_type(hb, e), bs, with_gamma || !e.exact_sums);
    std::mutex m;
    Worst all;
    Near near;  // the passing output nearest its bound, for the margin
    parallel_for(int64_t(count), [&](int64_t b, int64_t end) {
      Worst w;
      Near n;
      for (int64_t i = b; i < end; ++i) {
        double got = output_value(hb, e.codes, size_t(i)), want = e.want[i], ratio;
        Why why;
        if (iv) {
          double lo = e.lo[i], hi = e.hi[i];
          if (std::isnan(want) ? std::isnan(got) : (got >= lo && got <= hi)) {
            n.see_interval(got, want, lo, hi, size_t(i));
            continue;
          }
          ratio = std::isnan(got) ? INFINITY : 1 + std::max(lo - got, got - hi) / std::max(hi - lo, 1e-300);
          why = Why::interval;
        } else if (!std::isfinite(want) || !std::isfinite(got)) {
          if (fclass(want) == fclass(got) && (std::isnan(want) || want == got)) continue;
          ratio = INFINITY;
          why = Why::bound;
        } else {
          double bound = k.at(e, size_t(i)), err = std::fabs(got - want);
          if (err <= bound) {
            n.see(err, bound, size_t(i), bound);
            continue;
          }
          ratio = bound > 0 ? err / bound : INFINITY;
          why = Why::bound;
        }
        ++w.count;
        if (!w.failed || ratio > w.ratio) w = {true, ratio, size_t(i), why, w.count};
      }
      std::lock_guard<std::mutex> l(m);
      const size_t count = all.count + w.count;
      if (w.failed && (!all.failed || w.ratio > all.ratio || (w.ratio == all.ratio && w.i < all.i))) all = w;
      all.count = count;
      near.merge(n);
    }, 4096);
    if (near.ratio >= 0) keep_worst(margin, margin_at(near, e, hb, c));
    if (!all.failed) continue;
    size_t i = all.i;
    double got = output_value(hb, e.codes, i), want = e.want[i];
    std::string text;
    if (all.why == Why::interval)
      text = fmt::format("{}[{}] want {} in [{}, {}] got {}", e.name, i, fmtv(want), fmtv(e.lo[i]), fmtv(e.hi[i]),
                         fmtv(got));
    else if (!std::isfinite(want) || !std::isfinite(got))
      text = fmt::format("{}[{}] want {} got {}", e.name, i, fmtv(want), fmtv(got));
    else {
      double bound = k.at(e, i);
      text = fmt::format("{}[{}] want {} got {} |err| {:.3g} > bound {:.3g} ({:.3g}x)", e.name, i, fmtv(want),
                         fmtv(got), std::fabs(got - want), bound, all.ratio);
    }
    if (count > 1) text += fmt::format(", {} of {} {} outside", all.count, count, e.name);
    failing.push_back({all.ratio, all.why, std::move(text)});
  }
  if (!failing.empty()) {
    // Every failing buffer's worst output, the worst buffer first: the line names each witness.
    std::stable_sort(failing.begin(), failing.end(), [](const Failing& a, const Failing& b) { return a.ratio > b.ratio; });
    o.failed = true;
    o.why = failing.front().why;
    for (const auto& f : failing) o.detail += (o.detail.empty() ? "" : "; ") + f.text;
    o.fail_shape = c.shape(), o.fail_fill = c.fill();
  } else {
    o.margin = margin;
  }
  return o;
}

}  // namespace kc::detail
