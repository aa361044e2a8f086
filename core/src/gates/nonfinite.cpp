// Gate 1: NaN, +Inf and -Inf planted at known places; every output's class must equal float64's,
// tolerance-free, or the kernel's stated rule must hold.
#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <mutex>
#include <numeric>
#include <optional>
#include <fmt/ranges.h>

#include "gates.hpp"
#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/ref_device.hpp"

namespace kc::detail {

static std::string plant_text(const Rig& rig, const Fill& f) {
  std::string p = f.plant < int(rig.plants.size()) ? rig.plants[f.plant] : fmt::format("plant {}", f.plant);
  return f.pos >= 0 ? fmt::format("'{}' at column {}", p, f.pos) : fmt::format("'{}'", p);
}

// What gate 1 finds on a case that ran: nothing, or why and what. The rig's stated rule (Rig::rule)
// replaces every class check; otherwise each output is held to float64's class, or to its own stated
// rule (Expected::rule: equal to want, or any non-finite value where want is infinite). Each failing
// output buffer is named by its first failing output, a rule's before a class's.
struct Finding {
  Why why = Why::none;
  std::string text;  // "" where the case passed
  size_t bad = 0, total = 0;  // class mismatches, of outputs
};

static Finding find(GateCtx& ctx, const Case& c) {
  const Rig& rig = ctx.entry.rig;
  Finding out;
  if (rig.rule) {
    out.text = timed(ctx.phases.check, [&] { return rig.rule(c); });
    if (!out.text.empty()) out.why = Why::rule_broken;
    return out;
  }
  ResidentScope kept;  // a reference may keep its answers by row class, checked as they are
  const std::vector<Expected> want = timed(ctx.phases.reference, [&] { return rig.reference(c); });
  Timed t(ctx.phases.check);
  std::vector<std::string> ruled, classes;
  std::vector<Expected> fetched;  // kept answers that could not be checked as kept, expanded
  for (const auto& e0 : want) {
    const HostBuffer& hb = c.buffer(e0.name);
    const RefResident* k = e0.want.empty() && hb.decl.count ? kept.find(hb.bytes.data()) : nullptr;
    if (k && e0.rule.empty() && e0.codes == Codes::none && k->count() == hb.decl.count) {
      uint64_t differ = 0, first = 0;
      if (k->classes(hb.bytes.data(), hb.decl.type, differ, first).empty()) {
        out.bad += differ, out.total += hb.decl.count;
        if (!differ) continue;
        double w = 0, m = 0;
        if (std::string why = k->at(first, w, m); !why.empty()) throw Error(ctx.entry.spec.name + ": " + why);
        const double got = load_as_double(hb.bytes.data(), hb.decl.type, size_t(first));
        classes.push_back(fmt::format("{}[{}] want {} got {} ({:.9g}){}", e0.name, first, fclass_name(fclass(w)),
                                      fclass_name(fclass(got)), got,
                                      want.size() > 1 ? fmt::format(", {} of {} {} differ", differ, hb.decl.count, e0.name) : ""));
        continue;
      }
    }
    if (k) {
      Expected& x = fetched.emplace_back(e0);
      x.want.resize(size_t(k->count())), x.mag.resize(size_t(k->count()));
      if (std::string why = k->fetch(x.want.data(), x.mag.data()); !why.empty()) throw Error(ctx.entry.spec.name + ": " + why);
    }
    const Expected& e = k ? fetched.back() : e0;
    const size_t count = output_count(hb, e.codes);
    if (e.want.size() != count)
      throw Error(fmt::format("{}: reference() for '{}' has {} values, the buffer {}", ctx.entry.spec.name, e.name,
                              e.want.size(), count));
    const bool rule = !e.rule.empty();
    auto holds = [&](double w, double g) {
      if (!rule) return fclass(w) == fclass(g);
      if (e.rule_nonfinite) return std::isinf(w) ? !std::isfinite(g) : fclass(w) == fclass(g);
      return std::isnan(w) ? std::isnan(g) : w == g;
    };
    // Every output on every core; the first mismatch (lowest index) is the one named.
    std::mutex mu;
    size_t at = count, here = 0;
    parallel_for(int64_t(count), [&](int64_t lo, int64_t hi) {
      size_t n = 0, f = count;
      for (int64_t i = lo; i < hi; ++i)
        if (!holds(e.want[i], output_value(hb, e.codes, size_t(i))) && !n++) f = size_t(i);
      std::lock_guard<std::mutex> l(mu);
      here += n;
      at = std::min(at, f);
    }, 4096);
    if (!rule) out.bad += here, out.total += count;
    if (at == count) continue;
    const double got = output_value(hb, e.codes, at);
    if (rule)
      ruled.push_back(fmt::format("{}[{}] want {:.9g} got {:.9g}, {} of {} {} break its rule ({})", e.name, at, e.want[at],
                                  got, here, count, e.name, e.rule));
    else
      classes.push_back(fmt::format("{}[{}] want {} got {} ({:.9g}){}", e.name, at, fclass_name(fclass(e.want[at])),
                                    fclass_name(fclass(got)), got,
                                    want.size() > 1 ? fmt::format(", {} of {} {} differ", here, count, e.name) : ""));
  }
  if (!ruled.empty()) {
    out.why = Why::rule_broken;
    out.text = fmt::format("{}", fmt::join(ruled, "; "));
    if (!classes.empty()) out.text += fmt::format("; {}", fmt::join(classes, "; "));
  } else if (!classes.empty()) {
    out.why = Why::class_mismatch;
    out.text = fmt::format("{}; {} of {} outputs differ in class", fmt::join(classes, "; "), out.bad, out.total);
  }
  return out;
}

// Whether a broken stated rule is the plant's doing: the same inputs (same seed) without the plant
// (Fill::plant -1) run again; where the rule breaks there too, the line names no plant. A rig that
// cannot build its fill without a plant (it throws) keeps the plant's name, said as where it broke.
static std::string rule_cause(GateCtx& ctx, const Shape& s, const Fill& f, const Case& planted) {
  const Rig& rig = ctx.entry.rig;
  std::string at = fmt::format(" (plant {})", plant_text(rig, f));
  Fill none = f;
  none.plant = -1;
  none.pos = -1;
  std::optional<Case> c;
  try {
    Timed t(ctx.phases.inputs);
    c.emplace(s, none, planted.seed());
    c->spec = &ctx.entry.spec;
    rig.prepare(*c);
  } catch (const std::exception&) {
    return fmt::format(" (in the case of plant {})", plant_text(rig, f));
  }
  Ran r = run_case(ctx, s, none, std::move(*c));
  if (r.problem) return at;
  return find(ctx, r.c).why == Why::rule_broken ? " (with no plant too: the fill breaks it, not a plant)" : at;
}

Outcome check_nonfinite(GateCtx& ctx, const Shape& s, const Fill& f) {
  Ran r = run_case(ctx, Gate::nonfinite, s, f);
  if (r.problem) return *r.problem;
  ctx.first_runs.try_emplace({ctx.seed, s.str()}, f, output_hash(r.c));  // gate 2 compares it with a re-run
  Outcome o;
  o.shape = s.str();
  const Finding k = find(ctx, r.c);
  if (k.why == Why::none) return o;
  o.failed = true;
  o.why = k.why;
  o.detail = k.text + (k.why == Why::rule_broken ? rule_cause(ctx, s, f, r.c)
                                                 : fmt::format(" (plant {})", plant_text(ctx.entry.rig, f)));
  o.fail_shape = s;
  o.fail_fill = f;
  return o;
}

Outcome gate_nonfinite(GateCtx& ctx) {
  const Rig& rig = ctx.entry.rig;
  // The extremes, and each tiled dim at its least, tile - step, tile and tile + step: a ragged tail,
  // where kernels pad with sentinels, must carry a non-finite value too, and a masked slot past a
  // sequence's end sits at a tile's last key, at the next tile's first and at its second.
  const Spec& spec = ctx.entry.spec;
  std::vector<Shape> shapes = extreme_shapes(spec);
  std::vector<Shape> edges = spec.tile_edge_shapes();
  for (const auto& d : spec.dims)
    if (d.tiled && spec.valid(d, d.tile)) {
      Shape s = spec.smallest();
      s.set(d.name, d.tile);
      edges.push_back(s);
    }
  for (const auto& s : edges)
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  shapes = form_extreme_shapes(ctx, std::move(shapes));
  // Which plants each shape gets (Rig::plants_at_edges, plants_at_scale): every plant at the two
  // smallest shapes of each launch form (the smallest is often one column, where first, middle and
  // last are one value and a whole row is a single plant); the single values at the last column and
  // the whole rows at its other shapes; above kAllPlantsCase elements, the single values alone.
  if (shapes.empty()) throw Error(ctx.entry.spec.name + ": gate 1 has no shape");
  for (int p : rig.plants_at_edges)
    if (p < 0 || p >= int(rig.plants.size()))
      throw Error(fmt::format("{}: Rig::plants_at_edges names plant {}, of {}", ctx.entry.spec.name, p, rig.plants.size()));
  std::vector<size_t> order(shapes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return shapes[a].elements() < shapes[b].elements(); });
  const int64_t full = std::max(shapes[order[0]].elements(), kAllPlantsCase);
  std::map<std::string, int> form_seen;  // form -> shapes of it given every plant
  std::vector<std::vector<int>> runs(shapes.size());
  std::vector<int> all(rig.plants.size());
  std::iota(all.begin(), all.end(), 0);
  for (size_t i : order) {
    if (shapes[i].elements() > full && rig.plants_at_scale >= 0) {
      for (int p = 0; p < std::min(rig.plants_at_scale, int(all.size())); ++p) runs[i].push_back(p);
      continue;
    }
    const std::string form = rig.pick ? rig.pick(shapes[i]) : "";
    if (form_seen[form] < 2) {
      ++form_seen[form];
      runs[i] = all;
    } else if (!rig.plants_at_edges.empty()) {
      runs[i] = rig.plants_at_edges;
    } else {
      runs[i] = all;
    }
  }
  int skipped = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    skipped += int(all.size()) - int(runs[i].size());
    for (int p : runs[i]) {
      Outcome o = check_nonfinite(ctx, shapes[i], Fill{FillKind::nonfinite, p, -1});
      if (o.failed) return o;
    }
  }
  Outcome o;
  o.detail = fmt::format("{} plants at {} shapes{}{}", rig.plants.size(), shapes.size(),
                         skipped ? fmt::format(" ({} cases left to each form's two smallest shapes)", skipped) : "",
                         rig.rule ? fmt::format(", stated rule: {}", ctx.entry.spec.rule)
                         : ctx.entry.spec.rule.empty()
                             ? ", classes equal float64's"
                             : fmt::format(", classes equal float64's but where a rule is stated ({})", ctx.entry.spec.rule));
  return o;
}

}  // namespace kc::detail
