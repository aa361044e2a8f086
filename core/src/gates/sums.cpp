// Gate 4: integer fills whose fp32 sums are exact in any order. The fp16 and bf16 replays (three
// orders each) must miss by at least 100x the exact-sum bound, proving the fill can tell; then the
// kernel must meet that bound, proving it sums in fp32.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <mutex>

#include "gates.hpp"
#include "kc/numeric.hpp"
#include "kc/parallel.hpp"

namespace kc::detail {

inline constexpr double required_miss = 100;
// Cases of at most this many outputs (8192 x 16384) run their reference and replays side by side
// (check_sums): seven expanded answers of 1 GiB at most held at once.
inline constexpr size_t kTogetherOutputs = size_t(1) << 27;

// What a kernel's miss of the exact-sum bound is: a half-precision sum where one of the six replays
// gives what the kernel gave (within the same bound, or the same non-finite class) at the failing
// outputs (at least half of them), named with how many it explains; else a departure from the formula (a term
// dropped, a wrong id, other units) that no replay explains. The replays are made again here, on
// the failure alone: keeping six copies of every output would cost gigabytes at large shapes.
static std::string explain_miss(GateCtx& ctx, const Case& c, const std::vector<Expected>& exp) {
  const Spec& spec = ctx.entry.spec;
  struct Miss {
    size_t e, i;
    double got, bound;
  };
  std::vector<Miss> miss;
  for (size_t e = 0; e < exp.size(); ++e) {
    const HostBuffer& hb = c.buffer(exp[e].name);
    const Coeffs k = error_coeffs(spec, rounding_type(hb, exp[e]), c.shape(), !exp[e].exact_sums);
    for (size_t i = 0; i < exp[e].want.size() && i < output_count(hb, exp[e].codes); ++i) {
      const double w = exp[e].want[i], got = output_value(hb, exp[e].codes, i);
      if (!exp[e].lo.empty()) {
        if (std::isnan(w) ? std::isnan(got) : (got >= exp[e].lo[i] && got <= exp[e].hi[i])) continue;
        miss.push_back({e, i, got, std::max(exp[e].hi[i] - exp[e].lo[i], 0.0)});
        continue;
      }
      const double b = k.at(exp[e], i);
      const bool ok = std::isfinite(w) && std::isfinite(got) ? std::fabs(got - w) <= b
                                                             : fclass(w) == fclass(got) && (std::isnan(w) || w == got);
      if (!ok) miss.push_back({e, i, got, b});
    }
  }
  size_t best = 0;
  std::string which;
  for (SumFormat fm : {SumFormat::f16, SumFormat::bf16})
    for (SumOrder od : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32}) {
      const auto rep = timed(ctx.phases.reference, [&] { return ctx.entry.rig.simulate(c, fm, od); });
      size_t n = 0;
      for (const auto& m : miss) {
        if (m.e >= rep.size() || m.i >= rep[m.e].size()) continue;
        const double r = rep[m.e][m.i];
        n += std::isfinite(r) && std::isfinite(m.got) ? std::fabs(m.got - r) <= m.bound
                                                      : fclass(r) == fclass(m.got) && (std::isnan(r) || r == m.got);
      }
      if (n > best) best = n, which = fmt::format("{} {}", fm == SumFormat::f16 ? "an fp16" : "a bf16", sum_order_name(od));
    }
  // A replay that explains a few of many failing outputs is a coincidence, not the kernel's sum.
  if (2 * best < miss.size()) return "differs from the formula (no fp16 or bf16 replay explains the miss)";
  return fmt::format("not an fp32 sum: it matches {} sum{}", which,
                     best == miss.size() ? "" : fmt::format(" at {} of its {} failing outputs", best, miss.size()));
}

Outcome check_sums(GateCtx& ctx, const Shape& s, const Fill& f) {
  const Spec& spec = ctx.entry.spec;
  Outcome o;
  o.shape = s.str();
  Case c = prepare_case(ctx, Gate::sums, s, f);
  // The reference and the six replays read the case alone, so they run side by side: attention's few
  // long rows keep a few cores busy each (a row a core), and a projection's replays each expand
  // its few patterns to every output from one thread. Past kTogetherOutputs, one after another.
  size_t outputs = 0;
  for (const auto& b : c.buffers())
    if (b.decl.role != Role::in) outputs += b.decl.count;
  const bool together = outputs <= kTogetherOutputs;
  std::vector<std::future<std::vector<std::vector<double>>>> early;
  std::vector<Expected> exp;
  {
    Timed t(ctx.phases.reference);
    if (together)
      for (SumFormat fm : {SumFormat::f16, SumFormat::bf16})
        for (SumOrder od : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32})
          early.push_back(std::async(std::launch::async, [&ctx, &c, fm, od] { return ctx.entry.rig.simulate(c, fm, od); }));
    try {
      exp = ctx.entry.rig.reference(c);
    } catch (...) {
      for (auto& r : early) r.wait();  // none outlives the case
      throw;
    }
  }
  std::vector<std::string> weak, margins;
  size_t replay = 0;
  for (SumFormat fm : {SumFormat::f16, SumFormat::bf16})
    for (SumOrder od : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32}) {
      std::vector<std::vector<double>> rep;
      try {
        rep = timed(ctx.phases.reference,
                    [&] { return together ? early[replay].get() : ctx.entry.rig.simulate(c, fm, od); });
      } catch (...) {
        for (size_t k = replay + 1; k < early.size(); ++k) early[k].wait();
        throw;
      }
      ++replay;
      Timed t(ctx.phases.check);
      if (rep.size() != exp.size())
        throw Error(fmt::format("{}: simulate() gave {} outputs, reference() {}", spec.name, rep.size(), exp.size()));
      double miss = 0;
      std::mutex mu;
      for (size_t e = 0; e < exp.size(); ++e) {
        const HostBuffer& hb = c.buffer(exp[e].name);
        const Coeffs k = error_coeffs(spec, rounding_type(hb, exp[e]), s, !exp[e].exact_sums);
        const int64_t n = int64_t(std::min(exp[e].want.size(), rep[e].size()));
        // Every output on every core (8192 x 16384 outputs, six replays): the largest miss.
        parallel_for(n, [&](int64_t lo, int64_t hi) {
          double mine = 0;
          for (int64_t i = lo; i < hi; ++i) {
            double w = exp[e].want[i], r = rep[e][i];
            if (!std::isfinite(w)) continue;
            double b = k.at(exp[e], size_t(i));
            double ratio = !std::isfinite(r) ? INFINITY : std::fabs(r - w) / b;
            mine = std::max(mine, ratio);
          }
          std::lock_guard<std::mutex> l(mu);
          miss = std::max(miss, mine);
        }, 4096);
      }
      std::string m = fmt::format("{} {} {:.3g}x", sum_format_name(fm), sum_order_name(od), miss);
      margins.push_back(m);
      if (!(miss >= required_miss)) weak.push_back(m);
    }
  o.notes.push_back(fmt::format("gate 4 at {}: replays miss the exact-sum bound by {}", s.str(), fmt::join(margins, ", ")));
  if (!weak.empty()) {
    if (spec.sums->hidden.empty()) {
      o.failed = true;
      o.why = Why::weak_fill;
      o.detail = fmt::format("the fill is too weak: replays {} miss by less than {}x the exact-sum bound",
                             fmt::join(weak, ", "), required_miss);
      o.fail_shape = s;
      o.fail_fill = f;
      return o;
    }
    o.notes.push_back(fmt::format("margins only ({}): {}", spec.sums->hidden, fmt::join(weak, ", ")));
  }
  Ran r = run_case(ctx, s, f, std::move(c));  // every replay has finished with c
  if (r.problem) return *r.problem;
  Outcome k = timed(ctx.phases.check, [&] { return compare(spec, r.c, exp, false); });
  k.notes = o.notes;
  if (k.failed) k.detail = explain_miss(ctx, r.c, exp) + ": " + k.detail;
  return k;
}

Outcome gate_sums(GateCtx& ctx) {
  Outcome o;
  if (!ctx.entry.spec.sums || !ctx.entry.spec.sums->summed) {
    o.applies = false;
    o.detail = "no sums declared";
    return o;
  }
  auto shapes = form_extreme_shapes(ctx);
  // Partial tiles' sums too: the smallest shape with every tiled dim ragged, in the served ranges
  // (where the fills can tell fp32 from half).
  const Spec& spec = ctx.entry.spec;
  if (auto r = spec.smallest_ragged([&](const Shape& s) { return spec.within_served(s); }))
    if (std::find(shapes.begin(), shapes.end(), *r) == shapes.end()) shapes.push_back(*r);
  std::vector<std::string> notes;
  for (const auto& s : shapes) {
    Outcome k = check_sums(ctx, s, Fill{FillKind::sums});
    notes.insert(notes.end(), k.notes.begin(), k.notes.end());
    if (k.failed) {
      k.notes = notes;
      return k;
    }
  }
  o.notes = notes;
  o.detail = fmt::format("exact fp32 sums at {} shapes", shapes.size());
  return o;
}

Outcome check_case(GateCtx& ctx, Gate g, const Shape& s, const Fill& f) {
  switch (g) {
    case Gate::nonfinite: return check_nonfinite(ctx, s, f);
    case Gate::repeat: return check_repeat(ctx, s, f);
    case Gate::shapes: return check_shapes(ctx, s, f);
    case Gate::sums: return check_sums(ctx, s, f);
    default: throw Error(fmt::format("gate {} has no cases to run again", int(g)));
  }
}

}  // namespace kc::detail
