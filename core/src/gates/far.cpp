// The far-offset check (gate 7): where a spec names a far shape (Entry::far), one at which a buffer
// passes 2^31 elements or bytes, the kernel runs there once on random inputs. float64 judges only
// the rows (along the spec's far dim, whose output rows depend on their own input rows and on the
// buffers that do not grow with it) around each place where some buffer's element or byte offset
// crosses 2^31 or 2^32, and the first and last rows: they are copied into a case of those rows
// alone, whose reference is computed there, and the far run's output rows are held to it within
// gate 3's bound at the far shape. A kernel that indexes in 32 bits reads or writes another row past
// the boundary (or faults) and fails here; a reference over every output would cost minutes.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gates.hpp"
#include "kc/numeric.hpp"

namespace kc::detail {

namespace {

constexpr uint64_t k2g = uint64_t(1) << 31, k4g = uint64_t(1) << 32;

// A buffer's row along the dim: its elements and bytes (0: shared by every row).
struct Row {
  uint64_t elems = 0, bytes = 0;
};

// Each buffer's row, from its counts at one row and at two (cheap cases, filled before the far one
// is): a buffer grows with the dim only as whole rows of one size, or not at all; every output grows.
std::map<std::string, Row> rows_of(const Spec& spec, const Case& one, const Case& two, const std::string& dim) {
  std::map<std::string, Row> out;
  for (const auto& x : one.buffers()) {
    const HostBuffer& y = two.buffer(x.decl.name);
    Row r;
    if (x.decl.count != y.decl.count) {
      if (y.decl.count != 2 * x.decl.count)
        throw Error(fmt::format("{}: far('{}'): buffer '{}' holds {} elements at {} = 1 and {} at 2: not a whole "
                                "number of rows of one size", spec.name, dim, x.decl.name, x.decl.count, dim,
                                y.decl.count));
      r.elems = x.decl.count;
      r.bytes = x.size_bytes();
    } else if (x.decl.role != Role::in) {
      throw Error(fmt::format("{}: far('{}'): output '{}' does not grow with {}: no row of it to check", spec.name,
                              dim, x.decl.name, dim));
    }
    out[x.decl.name] = r;
  }
  return out;
}

}  // namespace

Outcome gate_far(GateCtx& ctx) {
  const Spec& spec = ctx.entry.spec;
  Outcome o;
  if (spec.far_dim.empty()) {
    o.applies = false;
    o.detail = "no far shape stated";
    return o;
  }
  const std::string& dim = spec.far_dim;
  const Shape& F = spec.far_shape;
  const int64_t n = F[dim];
  const Fill fill{FillKind::random};
  o.shape = F.str();

  Shape one = F, two = F;
  one.set(dim, 1);
  two.set(dim, 2);
  const std::map<std::string, Row> rows =
      rows_of(spec, prepare_case(ctx, Gate::far, one, fill), prepare_case(ctx, Gate::far, two, fill), dim);
  // The rows around every crossing, of elements and of bytes, in every buffer that grows.
  std::set<int64_t> pick{0, n - 1};
  std::vector<std::string> crossings;
  uint64_t widest = 0;
  std::string widest_name;
  for (const auto& [name, r] : rows) {
    if (!r.elems) continue;
    if (r.bytes * uint64_t(n) > widest) widest = r.bytes * uint64_t(n), widest_name = name;
    for (const auto& [unit, size] : {std::pair<const char*, uint64_t>{"elements", r.elems}, {"bytes", r.bytes}})
      for (uint64_t at : {k2g, k4g}) {
        const uint64_t row = at / size;
        if (row >= uint64_t(n)) continue;
        crossings.push_back(fmt::format("'{}' passes 2^{} {} at row {}", name, at == k2g ? 31 : 32, unit, row));
        for (int64_t d = -1; d <= 1; ++d)
          if (int64_t(row) + d >= 0 && int64_t(row) + d < n) pick.insert(int64_t(row) + d);
      }
  }
  if (crossings.empty())
    throw Error(fmt::format("{}: far shape {}: no buffer that grows with '{}' passes 2^31 elements or bytes (the "
                            "largest, '{}', holds {} bytes)", spec.name, F.str(), dim, widest_name, widest));
  std::sort(crossings.begin(), crossings.end());
  crossings.erase(std::unique(crossings.begin(), crossings.end()), crossings.end());

  Ran a = run_case(ctx, Gate::far, F, fill);
  if (a.problem) return *a.problem;

  // The chosen rows alone: inputs and the far run's outputs copied in, row by row.
  const std::vector<int64_t> at(pick.begin(), pick.end());
  Shape s = F;
  s.set(dim, int64_t(at.size()));
  Case c = prepare_case(ctx, Gate::far, s, fill);
  {
    Timed t(ctx.phases.inputs);
    for (auto& hb : c.buffers()) {
      const HostBuffer& src = a.c.buffer(hb.decl.name);
      const Row r = rows.at(hb.decl.name);
      if (!r.bytes) {
        hb.bytes = src.bytes;
        continue;
      }
      for (size_t i = 0; i < at.size(); ++i)
        std::memcpy(hb.bytes.data() + i * r.bytes, src.bytes.data() + size_t(at[i]) * r.bytes, r.bytes);
    }
  }
  for (auto& hb : a.c.buffers()) std::vector<std::byte>().swap(hb.bytes);  // gigabytes, read: gone before the reference
  const std::vector<Expected> want = timed(ctx.phases.reference, [&] { return ctx.entry.rig.reference(c); });
  Outcome k = compare(spec, c, want, true, &F);
  const std::string where = fmt::format("{} {} of {} at {} ({})", dim, fmt::join(at, ", "), n, F.str(),
                                        fmt::join(crossings, "; "));
  if (k.failed) {
    k.shape = F.str();
    k.fail_shape = F;
    k.fail_fill = fill;
    k.detail = fmt::format("{}, checked as rows 0-{} in that order: {}", where, at.size() - 1, k.detail);
    return k;
  }
  o.detail = "every output of " + where;
  return o;
}

}  // namespace kc::detail
