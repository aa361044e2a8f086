// Gates 2 and 3's named fills (see fill_cases.hpp).
#include "fill_cases.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "margin.hpp"

namespace kc::detail {

std::vector<Shape> fill_shapes(const Spec& spec) {
  std::vector<Shape> out = extreme_shapes(spec);
  out.resize(1);
  Shape ragged = out[0];
  bool any = false;
  for (const auto& d : spec.dims) {
    if (!d.tiled || d.tile <= 0) continue;
    for (int64_t v : {d.tile + d.step, d.tile - d.step, d.least})
      if (v > 0 && v % d.tile != 0 && spec.valid(d, v)) {
        ragged.set(d.name, v);
        any = true;
        break;
      }
  }
  if (any && !(ragged == out[0])) out.push_back(ragged);
  return out;
}

Outcome named_fills(GateCtx& ctx, const std::function<Outcome(GateCtx&, const Shape&, const Fill&)>& check,
                    Outcome& pass) {
  const auto& fills = ctx.entry.rig.fills;
  if (fills.empty()) return {};
  const auto shapes = fill_shapes(ctx.entry.spec);
  for (const auto& dist : fills)
    for (const auto& s : shapes) {
      Fill f{FillKind::random};
      f.dist = dist;
      Outcome o = check(ctx, s, f);
      if (o.failed) {
        // The fill is named once, with the shape it failed at.
        o.shape = fmt::format("{} fill={}", o.shape.empty() ? s.str() : o.shape, dist);
        return o;
      }
      keep_worst(pass.margin, o.margin);
    }
  std::vector<std::string> at;
  for (const auto& s : shapes) at.push_back(s.str());
  pass.detail += fmt::format("; {} named fills ({}) at {}", fills.size(), fmt::join(fills, ", "), fmt::join(at, " and "));
  return {};
}

}  // namespace kc::detail
