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
  const std::string m = timed(ctx.phases.check, [&] { return rig.rule(r.c); });
  return m.empty() ? at : " (with no plant too: the fill breaks it, not a plant)";
}

Outcome check_nonfinite(GateCtx& ctx, const Shape& s, const Fill& f) {
  Ran r = run_case(ctx, Gate::nonfinite, s, f);
  if (r.problem) return *r.problem;
  // gate 2 compares it with a re-run
  ctx.first_runs.try_emplace({ctx.seed, s.str()}, f, timed(ctx.phases.check, [&] { return output_hash(r.c); }));
  const Rig& rig = ctx.entry.rig;
  Outcome o;
  o.shape = s.str();
  auto fail = [&](Why why, std::string detail) {
    o.failed = true;
    o.why = why;
    o.detail = std::move(detail);
    o.fail_shape = s;
    o.fail_fill = f;
    return o;
  };
  if (rig.rule) {
    std::string m = timed(ctx.phases.check, [&] { return rig.rule(r.c); });
    if (m.empty()) return o;
    return fail(Why::rule_broken, m + rule_cause(ctx, s, f, r.c));
  }
  size_t bad = 0, total = 0;
  std::vector<std::string> firsts;  // each failing buffer's first mismatch
  ResidentScope kept;  // a reference may keep its answers by row class, checked as they are
  const std::vector<Expected> want = timed(ctx.phases.reference, [&] { return rig.reference(r.c); });
  Timed t(ctx.phases.check);
  std::vector<Expected> fetched;
  for (const auto& e0 : want) {
    const HostBuffer& hb = r.c.buffer(e0.name);
    const RefResident* k = e0.want.empty() && hb.decl.count ? kept.find(hb.bytes.data()) : nullptr;
    uint64_t differ = 0, first = 0;
    if (k && k->count() == hb.decl.count && k->classes(hb.bytes.data(), hb.decl.type, differ, first).empty()) {
      bad += differ;
      total += hb.decl.count;
      if (differ) {
        double w = 0, m = 0;
        if (std::string why = k->at(first, w, m); !why.empty()) throw Error(ctx.entry.spec.name + ": " + why);
        double got = load_as_double(hb.bytes.data(), hb.decl.type, size_t(first));
        firsts.push_back(fmt::format("{}[{}] want {} got {} ({:.9g}){}", e0.name, first, fclass_name(fclass(w)),
                                     fclass_name(fclass(got)), got,
                                     want.size() > 1 ? fmt::format(", {} of {} {} differ", differ, hb.decl.count, e0.name) : ""));
      }
      continue;
    }
    if (k) {  // kept, but not checked as kept: expanded
      Expected& x = fetched.emplace_back(e0);
      x.want.resize(size_t(k->count())), x.mag.resize(size_t(k->count()));
      if (std::string why = k->fetch(x.want.data(), x.mag.data()); !why.empty()) throw Error(ctx.entry.spec.name + ": " + why);
    }
    const Expected& e = k ? fetched.back() : e0;
    if (e.want.size() != hb.decl.count)
      throw Error(fmt::format("{}: reference() for '{}' has {} values, the buffer {}", ctx.entry.spec.name, e.name,
                              e.want.size(), hb.decl.count));
    // Every output on every core; the first mismatch (lowest index) is the one named.
    std::mutex mu;
    size_t at = hb.decl.count, here = 0;
    parallel_for(int64_t(hb.decl.count), [&](int64_t lo, int64_t hi) {
      size_t n = 0, f = hb.decl.count;
      for (int64_t i = lo; i < hi; ++i)
        if (fclass(e.want[i]) != fclass(load_as_double(hb.bytes.data(), hb.decl.type, size_t(i))) && !n++) f = size_t(i);
      std::lock_guard<std::mutex> l(mu);
      here += n;
      at = std::min(at, f);
    }, 4096);
    bad += here;
    total += hb.decl.count;
    if (at < hb.decl.count) {
      double got = load_as_double(hb.bytes.data(), hb.decl.type, at);
      firsts.push_back(fmt::format("{}[{}] want {} got {} ({:.9g}){}", e.name, at, fclass_name(fclass(e.want[at])),
                                   fclass_name(fclass(got)), got,
                                   want.size() > 1 ? fmt::format(", {} of {} {} differ", here, hb.decl.count, e.name) : ""));
    }
  }
  if (bad)
    return fail(Why::class_mismatch, fmt::format("{}; {} of {} outputs differ in class (plant {})", fmt::join(firsts, "; "),
                                                 bad, total, plant_text(rig, f)));
  return o;
}

Outcome gate_nonfinite(GateCtx& ctx) {
  const Rig& rig = ctx.entry.rig;
  // The extremes, and each tiled dim at its least and tile +- step: a ragged tail, where kernels pad
  // with sentinels, must carry a non-finite value too.
  std::vector<Shape> shapes = extreme_shapes(ctx.entry.spec);
  for (const auto& s : ctx.entry.spec.tile_edge_shapes())
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
                         rig.rule ? fmt::format(", stated rule: {}", ctx.entry.spec.rule) : ", classes equal float64's");
  return o;
}

}  // namespace kc::detail
