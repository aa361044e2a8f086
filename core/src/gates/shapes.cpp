// Gate 3: every served shape and every tile edge, each output within its float64 error bound (or
// inside its rounding-point interval); a replacement must instead be bit-equal to what it replaces.
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fill_cases.hpp"
#include "gates.hpp"
#include "kc/numeric.hpp"
#include "kc/ref_device.hpp"
#include "margin.hpp"

namespace kc::detail {

static Outcome bit_equal(GateCtx& ctx, const Case& mine, const Shape& s, const Fill& f) {
  Ran theirs = run_case(ctx, Gate::shapes, s, f, &ctx.entry.rig.replaced, &mine);
  Outcome o;
  o.shape = s.str();
  if (theirs.problem) {
    o = *theirs.problem;
    o.detail = "the replaced kernel (" + ctx.entry.spec.replaces + "): " + o.detail;
    return o;
  }
  Timed t(ctx.phases.check);
  for (const auto& b : mine.buffers()) {
    if (b.decl.role == Role::in) continue;
    const HostBuffer& t = theirs.c.buffer(b.decl.name);
    size_t es = dtype_size(b.decl.type), diff = 0, at = 0;
    for (size_t i = 0; i < b.decl.count; ++i)
      if (std::memcmp(b.bytes.data() + i * es, t.bytes.data() + i * es, es) != 0 && !diff++) at = i;
    if (diff) {
      o.failed = true;
      o.why = Why::not_bit_equal;
      o.detail = fmt::format("{}[{}] is {:.9g}, {} gives {:.9g} ({} of {} outputs differ in bits)", b.decl.name, at,
                             load_as_double(b.bytes.data(), b.decl.type, at), ctx.entry.spec.replaces,
                             load_as_double(t.bytes.data(), b.decl.type, at), diff, b.decl.count);
      o.fail_shape = s;
      o.fail_fill = f;
      return o;
    }
  }
  return o;
}

Outcome check_shapes(GateCtx& ctx, const Shape& s, const Fill& f) {
  Ran r = run_case(ctx, Gate::shapes, s, f);
  if (r.problem) return *r.problem;
  if (ctx.entry.rig.replaced) return bit_equal(ctx, r.c, s, f);
  // A device that computes the reference may keep it there for compare() to check in place.
  ResidentScope kept;
  const std::vector<Expected> want = timed(ctx.phases.reference, [&] { return ctx.entry.rig.reference(r.c); });
  return timed(ctx.phases.check, [&] { return compare(ctx.entry.spec, r.c, want, true); });
}

std::vector<Shape> gate3_all_shapes(const GateCtx& ctx, FormShapes* forms) {
  auto shapes = ctx.entry.spec.gate3_shapes();
  // A launcher of several forms: each form it takes here, at a ragged shape the fixed ones lack.
  FormShapes f;
  if (ctx.entry.rig.pick) f = form_shapes(ctx.entry.spec, ctx.entry.rig.pick, shapes);
  for (const auto& [s, form] : f.added) shapes.push_back(s);
  if (forms) *forms = std::move(f);
  return shapes;
}

Outcome gate_shapes(GateCtx& ctx) {
  FormShapes forms;
  const auto shapes = gate3_all_shapes(ctx, &forms);
  std::optional<Margin> margin;  // the worst over every case, the named fills' included
  for (const auto& s : shapes) {
    Outcome o = check_shapes(ctx, s, Fill{FillKind::random});
    if (o.failed) {
      for (const auto& [fs, f] : forms.added)
        if (fs == s) o.detail += " (a shape for launch " + f + ")";
      return o;
    }
    keep_worst(margin, o.margin);
  }
  Outcome o;
  o.margin = margin;
  o.detail = fmt::format("{} shapes{}", shapes.size(),
                         ctx.entry.rig.replaced ? ", bit-equal to " + ctx.entry.spec.replaces : ", within float64's bound");
  if (!forms.added.empty()) {
    std::vector<std::string> at;
    for (const auto& [s, f] : forms.added) at.push_back(f + " at " + s.str());
    o.detail += fmt::format("; launch forms: {}", fmt::join(at, ", "));
  }
  if (!forms.unreached.empty()) o.detail += fmt::format("; forms no searched shape takes here: {}", fmt::join(forms.unreached, ", "));
  if (Outcome f = named_fills(ctx, check_shapes, o); f.failed) return f;
  return o;
}

}  // namespace kc::detail
