// Gate 2: five runs on the same inputs give the same output bytes; inputs unchanged; guards intact;
// no output overlaps an input unless declared in place. Poison changes every run, so an output the
// kernel leaves unwritten shows here as bytes that differ.
#include <cstring>
#include <fmt/format.h>

#include "gates.hpp"
#include "kc/numeric.hpp"

namespace kc::detail {

inline constexpr int repeat_runs = 5;

Outcome check_repeat(GateCtx& ctx, const Shape& s, const Fill& f) {
  Case c = prepare_case(ctx, Gate::repeat, s, f);
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
  auto t0 = Clock::now();
  DeviceCase dev(ctx.backend, ctx.entry.spec, c);
  ctx.phases.upload += seconds_since(t0);
  if (auto ov = dev.overlaps(); !ov.empty()) return fail(Why::overlap, ov.front());
  std::vector<std::vector<std::byte>> first;
  for (int k = 0; k < repeat_runs; ++k) {
    t0 = Clock::now();
    SyncResult res = launch_entry(ctx, dev, s);
    ctx.phases.kernel += seconds_since(t0);
    if (res.kind != SyncResult::ok) {
      std::string rec = ctx.backend.recover();
      return fail(res.kind == SyncResult::hang ? Why::hang : Why::fault,
                  fmt::format("run {} of {}: {}{}", k + 1, repeat_runs, res.error,
                              rec.empty() ? "" : "; the device could not be recovered: " + rec));
    }
    t0 = Clock::now();
    dev.fetch(c);
    auto guards = dev.broken_guards();
    auto changed = dev.changed_inputs();
    ctx.phases.fetch += seconds_since(t0);
    if (!guards.empty()) return fail(Why::guard_broken, fmt::format("run {}: {}", k + 1, guards.front()));
    if (!changed.empty()) return fail(Why::input_changed, fmt::format("after run {}: {}", k + 1, changed.front()));
    Timed t(ctx.phases.check);
    std::vector<std::vector<std::byte>> now;
    for (const auto& b : c.buffers())
      if (b.decl.role != Role::in) now.push_back(b.bytes);
    if (k == 0) {
      first = std::move(now);
      continue;
    }
    size_t bi = 0;
    for (const auto& b : c.buffers()) {
      if (b.decl.role == Role::in) continue;
      const auto& a = first[bi], &n = now[bi];
      ++bi;
      size_t es = dtype_size(b.decl.type), diff = 0, at = 0;
      if (a.size() == n.size() && std::memcmp(a.data(), n.data(), a.size()) == 0) continue;  // the usual case, fast
      for (size_t i = 0; i < b.decl.count; ++i)
        if (std::memcmp(a.data() + i * es, n.data() + i * es, es) != 0 && !diff++) at = i;
      if (diff)
        return fail(Why::bytes_differ,
                    fmt::format("run {} of {}: {}[{}] is {:.9g}, run 1 gave {:.9g} ({} of {} outputs differ)", k + 1,
                                repeat_runs, b.decl.name, at, load_as_double(n.data(), b.decl.type, at),
                                load_as_double(a.data(), b.decl.type, at), diff, b.decl.count));
    }
  }
  return o;
}

Outcome gate_repeat(GateCtx& ctx) {
  auto shapes = form_extreme_shapes(ctx);
  for (const auto& s : shapes) {
    Outcome o = check_repeat(ctx, s, Fill{FillKind::random});
    if (o.failed) return o;
  }
  Outcome o;
  o.detail = fmt::format("{} runs at {} shapes: same bytes, inputs and guards intact", repeat_runs, shapes.size());
  return o;
}

}  // namespace kc::detail
