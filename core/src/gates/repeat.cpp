// Gate 2: five runs on the same inputs give the same output bytes; inputs unchanged; guards intact;
// no output overlaps an input unless declared in place. Poison changes every run, so an output the
// kernel leaves unwritten shows here as bytes that differ. A chained entry (Spec::chained) has a
// sixth run: its chained inputs hold poison when it is launched, behind an upstream kernel that lets
// it start at once and writes their true bytes only after kLateUs; a kernel that reads them before
// waiting on the one ahead gives other bytes. Where the backend has a load (Backend::no_load), the
// five runs at the extreme shapes are made again beside it and must give run 1's bytes: a race an
// idle device hides (a tile read before its load landed, an order of blocks taken for granted)
// shows there.
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

#include "fill_cases.hpp"
#include "gates.hpp"
#include "kc/numeric.hpp"

namespace kc::detail {

inline constexpr int repeat_runs = 5;
// The upstream kernel's delay: far longer than a dependent launch takes to start (a few us).
inline constexpr double kLateUs = 50;

namespace {
// What the loaded runs of an entry's gate 2 saw: the load, in words, and the seconds they took.
struct LoadTally {
  std::string what;
  double seconds = 0;
};

// The backend's load while the loaded runs last; stopped at scope end whatever happened.
struct Loaded {
  Backend& b;
  std::string what, trouble;
  explicit Loaded(Backend& be) : b(be), what(be.load_start()) {}
  ~Loaded() {
    try { stop(); } catch (...) {}
  }
  void stop() {
    if (what.empty()) return;
    what.clear();
    trouble = b.load_stop();
  }
};

// Device copies of the chained inputs' true bytes, freed at scope end.
struct Stash {
  Backend& b;
  std::vector<void*> ptrs;
  ~Stash() {
    for (void* p : ptrs) try { b.free(p); } catch (...) {}
  }
};
}  // namespace

// `runs` launches on one case, each giving run 1's bytes; then, where `chained_run` and the spec
// chains, the chained run.
// `loaded` runs more are made beside the backend's load (0: none), each giving run 1's bytes.
static Outcome repeat_at(GateCtx& ctx, const Shape& s, const Fill& f, int runs, bool chained_run, int loaded = 0,
                         LoadTally* tally = nullptr) {
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
  // One run (fn: the entry's launch where null, else the chained run's): nothing where it matched
  // run 1 (or is run 1), else the Outcome that failed; `which` names the run in the detail.
  std::vector<std::vector<std::byte>> first;
  auto one_run = [&](const std::string& which, const std::function<void(const Buffers&)>* fn) -> std::optional<Outcome> {
    auto t1 = Clock::now();
    SyncResult res = launch_entry(ctx, dev, s, fn);
    ctx.phases.kernel += seconds_since(t1);
    if (res.kind != SyncResult::ok) {
      std::string rec = ctx.backend.recover();
      return fail(res.kind == SyncResult::hang ? Why::hang : Why::fault,
                  fmt::format("{}: {}{}", which, res.error,
                              rec.empty() ? "" : "; the device could not be recovered: " + rec));
    }
    t1 = Clock::now();
    dev.fetch(c);
    auto guards = dev.broken_guards();
    auto changed = dev.changed_inputs();
    ctx.phases.fetch += seconds_since(t1);
    if (!guards.empty()) return fail(Why::guard_broken, fmt::format("{}: {}", which, guards.front()));
    if (!changed.empty()) return fail(Why::input_changed, fmt::format("after {}: {}", which, changed.front()));
    Timed t(ctx.phases.check);
    if (first.empty()) {  // run 1's bytes, kept; later runs compare with them where they lie
      for (const auto& b : c.buffers())
        if (b.decl.role != Role::in) first.push_back(b.bytes);
      return std::nullopt;
    }
    size_t bi = 0;
    for (const auto& b : c.buffers()) {
      if (b.decl.role == Role::in) continue;
      const auto& a = first[bi], &n = b.bytes;
      ++bi;
      size_t es = dtype_size(b.decl.type), diff = 0, at = 0;
      if (a.size() == n.size() && std::memcmp(a.data(), n.data(), a.size()) == 0) continue;  // the usual case, fast
      for (size_t i = 0; i < b.decl.count; ++i)
        if (std::memcmp(a.data() + i * es, n.data() + i * es, es) != 0 && !diff++) at = i;
      if (diff)
        return fail(Why::bytes_differ, fmt::format("{}: {}[{}] is {:.9g}, run 1 gave {:.9g} ({} of {} outputs differ)",
                                                   which, b.decl.name, at, load_as_double(n.data(), b.decl.type, at),
                                                   load_as_double(a.data(), b.decl.type, at), diff, b.decl.count));
    }
    return std::nullopt;
  };
  for (int k = 0; k < runs; ++k)
    if (auto f = one_run(fmt::format("run {} of {}", k + 1, runs), nullptr)) return *f;
  if (loaded > 0) {
    const auto t0 = Clock::now();
    Loaded load(ctx.backend);
    if (tally) tally->what = load.what;
    for (int k = 0; k < loaded; ++k)
      if (auto f = one_run(fmt::format("run {} of {} under load ({})", k + 1, loaded, load.what), nullptr)) return *f;
    load.stop();
    if (tally) tally->seconds += seconds_since(t0);
    if (!load.trouble.empty()) o.notes.push_back("the load beside the runs: " + load.trouble);
  }
  const Spec& spec = ctx.entry.spec;
  if (spec.chained.empty() || !chained_run) return o;
  std::vector<const HostBuffer*> inputs;
  for (const std::string& name : spec.chained) {
    const HostBuffer* hb = nullptr;
    for (const auto& b : c.buffers())
      if (b.decl.name == name) hb = &b;
    if (!hb || hb->decl.role != Role::in)
      throw Error(fmt::format("{}: chained('{}') must name a declared input", spec.name, name));
    inputs.push_back(hb);
  }
  if (!ctx.backend.chains().empty()) return o;  // gate_repeat says why
  // The chained run: each chained input poisoned, its true bytes stashed on the device for the
  // upstream kernel to write late.
  Stash stash{ctx.backend, {}};
  std::vector<LateWrite> writes;
  for (const HostBuffer* hb : inputs) {
    const std::string& name = hb->decl.name;
    if (hb->bytes.empty()) continue;
    void* dst = dev.buffers().ptr(name);
    stash.ptrs.push_back(ctx.backend.alloc(hb->bytes.size()));
    ctx.backend.upload(stash.ptrs.back(), hb->bytes.data(), hb->bytes.size());
    std::vector<std::byte> poison(hb->bytes.size());
    pattern(poison.data(), poison.size(), ctx.run + 1, 7000);
    ctx.backend.upload(dst, poison.data(), poison.size());
    writes.push_back({dst, stash.ptrs.back(), hb->bytes.size()});
  }
  const std::function<void(const Buffers&)> chained = [&](const Buffers& b) {
    ctx.backend.launch_upstream(writes, kLateUs);
    ctx.entry.rig.run(b);
  };
  if (auto f = one_run(fmt::format("the chained run ({} written {:.0f} us late by the kernel ahead)",
                                   fmt::join(spec.chained, ", "), kLateUs),
                       &chained))
    return *f;
  return o;
}

Outcome check_repeat(GateCtx& ctx, const Shape& s, const Fill& f) { return repeat_at(ctx, s, f, repeat_runs, true); }

// Gate 1's first launch at s again, on its inputs: bytes that differ only on a shape's first launch
// in the process (a per-shape cache, a plan made on first sight) show here.
static Outcome first_again(GateCtx& ctx, const Shape& s, const Fill& f, uint64_t hash) {
  Ran r = run_case(ctx, Gate::nonfinite, s, f);
  if (r.problem) return *r.problem;
  Outcome o;
  o.shape = s.str();
  if (timed(ctx.phases.check, [&] { return output_hash(r.c); }) == hash) return o;
  const auto& plants = ctx.entry.rig.plants;
  o.failed = true;
  o.why = Why::bytes_differ;
  o.detail = fmt::format("the first launch at this shape (gate 1's, plant '{}') gave other bytes than a re-run on its inputs",
                         f.plant >= 0 && f.plant < int(plants.size()) ? plants[f.plant] : std::to_string(f.plant));
  o.fail_shape = s;
  o.fail_fill = f;
  return o;
}

Outcome gate_repeat(GateCtx& ctx) {
  auto shapes = form_extreme_shapes(ctx);
  // The loaded runs: at every extreme shape of up to kLargeCase elements where the backend has a load.
  const std::string no_load = ctx.backend.no_load();
  int loaded_shapes = 0;
  std::vector<std::string> load_notes;
  LoadTally load_tally;
  for (const auto& s : shapes) {
    const bool load = no_load.empty() && s.elements() <= kLargeCase;
    loaded_shapes += load;
    Outcome o = repeat_at(ctx, s, Fill{FillKind::random}, repeat_runs, true, load ? repeat_runs : 0, &load_tally);
    if (o.failed) return o;
    load_notes.insert(load_notes.end(), o.notes.begin(), o.notes.end());
  }
  // Two runs at each of gate 3's other shapes, before gate 3 launches there (so a shape's first
  // launch is among them): bytes that vary only at an edge, a corner or a form taken at mid sizes.
  std::vector<Shape> pairs;
  for (const auto& s : gate3_all_shapes(ctx))
    if (s.elements() <= kLargeCase && std::find(shapes.begin(), shapes.end(), s) == shapes.end()) pairs.push_back(s);
  for (const auto& s : pairs) {
    Outcome o = repeat_at(ctx, s, Fill{FillKind::random}, 2, false);
    if (o.failed) return o;
  }
  // Where gate 1 launched first, its first case again.
  size_t firsts = 0;
  for (const auto* list : {&shapes, &pairs})
    for (const auto& s : *list) {
      const auto it = ctx.first_runs.find({ctx.seed, s.str()});
      if (s.elements() > kLargeCase || it == ctx.first_runs.end()) continue;
      ++firsts;
      Outcome o = first_again(ctx, s, it->second.first, it->second.second);
      if (o.failed) return o;
    }
  Outcome o;
  o.detail = fmt::format("{} runs at {} shapes, 2 at {} more (gate 3's), gate 1's first launch again at {}: same bytes, "
                         "inputs and guards intact",
                         repeat_runs, shapes.size(), pairs.size(), firsts);
  if (loaded_shapes)
    o.detail += fmt::format("; {} runs more at {} of them under load ({}), each giving run 1's bytes ({:.3f} s)",
                            repeat_runs, loaded_shapes, load_tally.what, load_tally.seconds);
  o.notes.insert(o.notes.end(), load_notes.begin(), load_notes.end());
  if (Outcome f = named_fills(ctx, check_repeat, o); f.failed) return f;
  if (ctx.entry.spec.chained.empty()) return o;
  if (const std::string why = ctx.backend.chains(); !why.empty())
    o.notes.push_back(fmt::format("no chained run: {} (so no launch here starts before the kernel ahead ends)", why));
  else
    o.detail += fmt::format("; and a chained run at each, {} written late by the kernel ahead",
                            fmt::join(ctx.entry.spec.chained, ", "));
  return o;
}

}  // namespace kc::detail
