#include "repro.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kc/numeric.hpp"

namespace kc::detail {

// Valid sizes of a dim below `now`, smallest first (the least, halvings, one step down).
static std::vector<int64_t> smaller(const Spec& spec, const Dim& d, int64_t now) {
  std::vector<int64_t> c;
  auto snap = [&](int64_t v) { return d.least + std::max<int64_t>(0, (v - d.least) / d.step) * d.step; };
  c.push_back(d.least);
  for (int64_t v = now / 2; v > d.least; v /= 2) c.push_back(snap(v));
  c.push_back(snap(now - d.step));
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  std::erase_if(c, [&](int64_t v) { return v >= now || (!spec.valid(d, v) && v > d.least); });
  return c;
}

static bool still_fails(GateCtx& ctx, Gate g, const Shape& s, const Fill& f, Why why) {
  Outcome o = check_case(ctx, g, s, f);
  return o.failed && o.why == why;
}

std::vector<std::string> repro(GateCtx& ctx, Gate g, const Outcome& found) {
  const Spec& spec = ctx.entry.spec;
  Shape s = found.fail_shape;
  Fill f = found.fail_fill;
  if (s.dims().empty()) return {};
  bool changed = true;
  while (changed) {
    changed = false;
    for (const auto& d : spec.dims)
      for (int64_t v : smaller(spec, d, s[d.name])) {
        Shape t = s;
        t.set(d.name, v);
        if (still_fails(ctx, g, t, f, found.why)) {
          s = t;
          changed = true;
          break;
        }
      }
  }
  // The plant's column: along "cols" (rows family) or "k" (dense, affine): the first 64, then the
  // middle and the last (plants sit there too). A whole-row plant fails at any column but its
  // finite one's; the first column that fails is the one printed. None failing: the plant's own.
  const char* col_dim = s.has("cols") ? "cols" : s.has("k") ? "k" : nullptr;
  if (f.kind == FillKind::nonfinite && col_dim) {
    const int64_t n = s[col_dim];
    std::vector<int64_t> cols;
    for (int64_t pos = 0; pos < std::min<int64_t>(n, 64); ++pos) cols.push_back(pos);
    for (int64_t pos : {n / 2, n - 1})
      if (pos >= 64) cols.push_back(pos);
    for (int64_t pos : cols) {
      Fill t = f;
      t.pos = pos;
      if (still_fails(ctx, g, s, t, found.why)) {
        f = t;
        break;
      }
    }
  }
  Outcome last = check_case(ctx, g, s, f);
  std::vector<std::string> out;
  out.push_back(fmt::format("repro {} gate {} ({}): smallest failing shape {}, fill {}{}: {}", spec.name, int(g),
                            gate_name(g), s.str(), f.dist.empty() ? std::string(fill_name(f.kind)) : fmt::format("{} ({})", fill_name(f.kind), f.dist),
                            f.kind == FillKind::nonfinite
                                ? fmt::format(" plant '{}' at {}", ctx.entry.rig.plants.at(f.plant),
                                              f.pos < 0 ? std::string("its own column") : fmt::format("column {}", f.pos))
                                : "",
                            last.failed ? last.detail : "(passed when re-run: " + last.detail + ")"));
  Case c = prepare_case(ctx, g, s, f);
  for (const auto& b : c.buffers()) {
    if (b.decl.role == Role::out) continue;
    size_t n = std::min<size_t>(b.decl.count, b.decl.count <= 64 ? 64 : 32);
    std::vector<std::string> v;
    for (size_t i = 0; i < n; ++i) v.push_back(fmt::format("{:.6g}", c.value(b.decl.name, i)));
    out.push_back(fmt::format("  {} ({} x{}): {}{}", b.decl.name, dtype_name(b.decl.type), b.decl.count,
                              fmt::join(v, " "), n < b.decl.count ? " ..." : ""));
  }
  return out;
}

}  // namespace kc::detail
