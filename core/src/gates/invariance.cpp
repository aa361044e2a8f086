// The invariance check (gate 6): where a spec states a batch dim invariant (Entry::invariant), the
// same rows run inside other batches must give the same bytes. One run at the dim's largest served
// size gives the rows; then, at each served size (that one too), a batch whose even positions hold
// those rows in reverse order (each at another position) and whose odd positions hold rows of its
// own: every output row copied from the first run must equal it byte for byte. A kernel that picks
// its split, its reduction order or its tile by the batch size, or reads a neighbour's row, fails.
#include <algorithm>
#include <cstring>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gates.hpp"
#include "kc/numeric.hpp"

namespace kc::detail {

namespace {

// Each buffer's bytes a row along the dim, where it grows with the dim (its count at two sizes: the
// largest, na, and another, nb); 0 where its count stays the same (shared by every row).
using RowBytes = std::map<std::string, size_t>;
RowBytes row_bytes(const Spec& spec, const Case& a, const Case& b, int64_t na, int64_t nb, const std::string& dim) {
  RowBytes out;
  for (const auto& x : a.buffers()) {
    const HostBuffer& y = b.buffer(x.decl.name);
    if (x.decl.count == y.decl.count) {
      out[x.decl.name] = 0;
      continue;
    }
    if (x.decl.count % size_t(na) || y.decl.count % size_t(nb) || x.decl.count / size_t(na) != y.decl.count / size_t(nb))
      throw Error(fmt::format("{}: invariant('{}'): buffer '{}' holds {} elements at {} = {} and {} at {}: not a "
                              "whole number of rows of one size", spec.name, dim, x.decl.name, x.decl.count, dim, na,
                              y.decl.count, nb));
    out[x.decl.name] = x.size_bytes() / size_t(na);
  }
  return out;
}

// Which row of the first run position p of a batch of nb holds (-1: its own row).
int64_t source_row(int64_t p, int64_t na, int64_t nb) {
  if (p % 2) return -1;
  // Reversed, the first run's last rows at the front; at the same size each row one place on.
  return na == nb ? (p + 1) % na : na - 1 - p;
}

}  // namespace

Outcome check_invariance(GateCtx& ctx, const std::string& dim, const Shape& big, const Shape& s, const RowBytes& rows) {
  const Spec& spec = ctx.entry.spec;
  Outcome o;
  o.shape = s.str();
  const Fill fill{FillKind::random};
  const int64_t na = big[dim], nb = s[dim];
  // The rows to compare: the first run at the largest size.
  Ran a = run_case(ctx, Gate::invariance, big, fill);
  if (a.problem) return *a.problem;
  // The batch around them: its own fill (another seed: the case's shape differs, or at the same
  // size the seed of gate 3), then the first run's rows copied to its even positions.
  Case c = prepare_case(ctx, na == nb ? Gate::shapes : Gate::invariance, s, fill);
  {
    Timed t(ctx.phases.inputs);
    for (auto& hb : c.buffers()) {
      if (hb.decl.role != Role::in) continue;
      const HostBuffer& src = a.c.buffer(hb.decl.name);
      const size_t rb = rows.at(hb.decl.name);
      if (rb == 0) {
        hb.bytes = src.bytes;  // shared by every row: the first run's
        continue;
      }
      for (int64_t p = 0; p < nb; ++p)
        if (const int64_t r = source_row(p, na, nb); r >= 0)
          std::memcpy(hb.bytes.data() + size_t(p) * rb, src.bytes.data() + size_t(r) * rb, rb);
    }
  }
  Ran b = run_case(ctx, Gate::invariance, s, fill, nullptr, &c);
  if (b.problem) return *b.problem;
  Timed t(ctx.phases.check);
  for (const auto& hb : b.c.buffers()) {
    if (hb.decl.role == Role::in) continue;
    const HostBuffer& ref = a.c.buffer(hb.decl.name);
    const size_t rb = rows.at(hb.decl.name);
    if (rb == 0)
      throw Error(fmt::format("{}: invariant('{}'): output '{}' does not grow with {}: no row of it to compare",
                              spec.name, dim, hb.decl.name, dim));
    const size_t es = dtype_size(hb.decl.type);
    for (int64_t p = 0; p < nb; ++p) {
      const int64_t r = source_row(p, na, nb);
      if (r < 0) continue;
      const std::byte* got = hb.bytes.data() + size_t(p) * rb;
      const std::byte* want = ref.bytes.data() + size_t(r) * rb;
      if (std::memcmp(got, want, rb) == 0) continue;
      size_t at = 0, diff = 0;
      for (size_t i = 0; i < rb / es; ++i)
        if (std::memcmp(got + i * es, want + i * es, es) != 0 && !diff++) at = i;
      o.failed = true;
      o.why = Why::batch_variant;
      o.fail_shape = s;
      o.fail_fill = fill;
      o.detail = fmt::format("{} row {} of {} (row {} of {} at {}): {}[{}] is {:.9g}, there {:.9g} ({} of its {} "
                             "elements differ)", dim, p, nb, r, na, big.str(), hb.decl.name,
                             size_t(p) * (rb / es) + at, load_as_double(got, hb.decl.type, at),
                             load_as_double(want, hb.decl.type, at), diff, rb / es);
      return o;
    }
  }
  return o;
}

Outcome gate_invariance(GateCtx& ctx) {
  const Spec& spec = ctx.entry.spec;
  Outcome o;
  if (spec.invariant.empty()) {
    o.applies = false;
    o.detail = "no invariance stated";
    return o;
  }
  int checked = 0;
  std::vector<std::string> where;
  for (const std::string& dim : spec.invariant) {
    const Dim& d = *spec.dim(dim);
    Shape big = spec.smallest();
    big.set(dim, *std::max_element(d.served.begin(), d.served.end()));
    std::vector<int64_t> sizes = d.served;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    // A batch of one too, where the dim can be 1: a kernel's single-row path is a form of its own.
    if (sizes.front() > 1 && spec.valid(d, 1)) sizes.insert(sizes.begin(), 1);
    // Which buffers grow with the dim: their counts at the largest size and at another.
    int64_t other = sizes.front() != big[dim] ? sizes.front() : 0;
    for (int64_t v : {big[dim] - d.step, big[dim] + d.step})
      if (!other && spec.valid(d, v)) other = v;
    if (!other)
      throw Error(fmt::format("{}: invariant('{}'): the dim takes one size alone, so no batch differs", spec.name, dim));
    Shape at_other = big;
    at_other.set(dim, other);
    const RowBytes rows = row_bytes(spec, prepare_case(ctx, Gate::invariance, big, Fill{FillKind::random}),
                                    prepare_case(ctx, Gate::invariance, at_other, Fill{FillKind::random}), big[dim],
                                    other, dim);
    for (int64_t n : sizes) {
      Shape s = big;
      s.set(dim, n);
      Outcome k = check_invariance(ctx, dim, big, s, rows);
      if (k.failed) return k;
      ++checked;
    }
    where.push_back(fmt::format("{} at {}", dim, fmt::join(sizes, ", ")));
  }
  o.shape = spec.smallest().str();
  o.detail = fmt::format("the same rows' bytes in {} batches ({})", checked, fmt::join(where, "; "));
  return o;
}

}  // namespace kc::detail
