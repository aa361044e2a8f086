#include "kc/spec.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kc {

const char* why_name(Why w) {
  switch (w) {
    case Why::none: return "none";
    case Why::class_mismatch: return "class_mismatch";
    case Why::rule_broken: return "rule_broken";
    case Why::bytes_differ: return "bytes_differ";
    case Why::input_changed: return "input_changed";
    case Why::guard_broken: return "guard_broken";
    case Why::overlap: return "overlap";
    case Why::bound: return "bound";
    case Why::interval: return "interval";
    case Why::not_bit_equal: return "not_bit_equal";
    case Why::weak_fill: return "weak_fill";
    case Why::fault: return "fault";
    case Why::hang: return "hang";
    case Why::limit: return "limit";
    case Why::launch: return "launch";
    case Why::stream: return "stream";
    case Why::batch_variant: return "batch_variant";
  }
  return "?";
}

const Dim* Spec::dim(std::string_view n) const {
  for (const auto& d : dims)
    if (d.name == n) return &d;
  return nullptr;
}

bool Spec::valid(const Dim& d, int64_t v) const {
  if (v < d.least || d.step <= 0 || (v - d.least) % d.step != 0) return false;
  return d.served.empty() || v <= *std::max_element(d.served.begin(), d.served.end());
}

// Every shape taking each dim's sizes from sizes(dim), in declaration order; none without dims.
static std::vector<Shape> cross(const std::vector<Dim>& dims, const std::function<std::vector<int64_t>(const Dim&)>& sizes) {
  std::vector<Shape> out{Shape{}};
  for (const auto& d : dims) {
    const std::vector<int64_t> vs = sizes(d);
    std::vector<Shape> next;
    next.reserve(out.size() * vs.size());
    for (const auto& s : out)
      for (int64_t v : vs) {
        Shape t = s;
        t.set(d.name, v);
        next.push_back(std::move(t));
      }
    out = std::move(next);
  }
  if (dims.empty()) out.clear();
  return out;
}

std::vector<Shape> Spec::served_shapes() const {
  return cross(dims, [](const Dim& d) { return d.served; });
}

Shape Spec::smallest() const {
  Shape s;
  for (const auto& d : dims) s.set(d.name, *std::min_element(d.served.begin(), d.served.end()));
  return s;
}

std::vector<int64_t> Spec::edges(const Dim& d) const {
  const int64_t largest = *std::max_element(d.served.begin(), d.served.end());
  const std::vector<int64_t> vs = d.tiled ? std::vector<int64_t>{d.least, d.tile - d.step, d.tile, d.tile + d.step, largest}
                                          : std::vector<int64_t>{d.least, d.least + d.step, largest - d.step};
  std::vector<int64_t> out;
  for (int64_t v : vs)
    if (valid(d, v) && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

int64_t Spec::second(const Dim& d) const {
  const int64_t lo = *std::min_element(d.served.begin(), d.served.end());
  if (lo >= 2) return lo;
  const int64_t v = d.least + d.step;  // the least is 1 here: its next size is the first from 2 up
  return valid(d, v) ? v : lo;
}

// Adds s to out unless it is there already.
static void add_once(std::vector<Shape>& out, const Shape& s) {
  if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
}

std::vector<Shape> Spec::gate3_shapes() const {
  std::vector<Shape> out = served_shapes();
  const Shape base = smallest();
  Shape two;
  for (const auto& d : dims) two.set(d.name, second(d));
  for (const Shape& others : {base, two})
    for (const auto& d : dims)
      for (int64_t v : edges(d)) {
        Shape s = others;
        s.set(d.name, v);
        add_once(out, s);
      }
  // One dim ragged at a time cannot show a 2-D kernel that is wrong only where every dim is.
  Shape corner = base, low = base;
  for (const auto& d : dims) {
    if (!d.tiled) continue;
    for (int64_t v : {d.tile + d.step, d.tile - d.step, d.least})
      if (valid(d, v)) {
        corner.set(d.name, v);
        break;
      }
    low.set(d.name, d.least);
  }
  add_once(out, corner);
  add_once(out, low);
  return out;
}

std::vector<Shape> Spec::tile_edge_shapes() const {
  std::vector<Shape> out;
  const Shape base = smallest();
  for (const auto& d : dims) {
    if (!d.tiled) continue;
    for (int64_t v : {d.least, d.tile - d.step, d.tile + d.step}) {
      if (!valid(d, v)) continue;
      Shape s = base;
      s.set(d.name, v);
      add_once(out, s);
    }
  }
  return out;
}

bool Spec::ragged(const Shape& s) const {
  for (const auto& d : dims)
    if (d.tiled && d.tile > d.step && s[d.name] % d.tile == 0) return false;
  return true;
}

bool Spec::within_served(const Shape& s) const {
  for (const auto& d : dims) {
    const auto [lo, hi] = std::minmax_element(d.served.begin(), d.served.end());
    if (s[d.name] < *lo || s[d.name] > *hi) return false;
  }
  return true;
}

std::optional<Shape> Spec::smallest_ragged(const std::function<bool(const Shape&)>& keep) const {
  if (std::none_of(dims.begin(), dims.end(), [](const Dim& d) { return d.tiled && d.tile > d.step; })) return {};
  std::optional<Shape> best;
  for (const auto& s : form_candidates())
    if ((!keep || keep(s)) && ragged(s) && (!best || s.elements() < best->elements())) best = s;
  return best;
}

std::vector<Shape> Spec::form_candidates() const {
  return cross(dims, [&](const Dim& d) {
    const int64_t largest = *std::max_element(d.served.begin(), d.served.end());
    std::vector<int64_t> vs{d.least};
    vs.insert(vs.end(), d.served.begin(), d.served.end());
    // Powers of two (and three times them) of the step and of the tile: where launchers switch.
    for (int64_t base : {d.step, 3 * d.step, d.tiled ? d.tile : d.step, d.tiled ? 3 * d.tile : d.step})
      for (int64_t t = base; t - d.step <= largest; t *= 2)
        for (int64_t v : {t - d.step, t, t + d.step}) vs.push_back(v);
    std::erase_if(vs, [&](int64_t v) { return !valid(d, v); });
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
    return vs;
  });
}

FormShapes form_shapes(const Spec& spec, const std::function<std::string(const Shape&)>& pick,
                       const std::vector<Shape>& fixed, const std::function<bool(const Shape&)>& keep) {
  const std::vector<std::string>& forms = spec.forms.empty() ? spec.launches : spec.forms;
  auto form = [&](const Shape& s) {  // the index of the form pick takes at s
    const std::string f = pick(s);
    const auto it = std::find(forms.begin(), forms.end(), f);
    if (it == forms.end())
      throw Error(fmt::format("{} ({}, {}:{}): picks '{}' at {}, which is not one of its forms", spec.name,
                              spec.backend, spec.file, spec.line, f, s.str()));
    return size_t(it - forms.begin());
  };
  auto ragged = [&](const Shape& s) { return spec.ragged(s); };
  struct Best {
    bool ragged_fixed = false, fixed = false;
    const Shape* shape = nullptr;  // the candidate to add
    bool shape_ragged = false;
  };
  std::vector<Best> best(forms.size());
  for (const auto& s : fixed) {
    Best& b = best[form(s)];
    b.fixed = true;
    b.ragged_fixed = b.ragged_fixed || ragged(s);
  }
  const std::vector<Shape> cands = spec.form_candidates();
  for (const auto& s : cands) {
    if (keep && !keep(s)) continue;
    Best& b = best[form(s)];
    if (b.ragged_fixed) continue;
    const bool r = ragged(s);
    // A ragged shape before any other; then the fewest elements (the first found on a tie).
    if (!b.shape || (r && !b.shape_ragged) || (r == b.shape_ragged && s.elements() < b.shape->elements()))
      b.shape = &s, b.shape_ragged = r;
  }
  FormShapes out;
  for (size_t i = 0; i < best.size(); ++i) {
    const Best& b = best[i];
    if (!b.fixed && !b.shape) out.unreached.push_back(forms[i]);
    else if (b.shape && !b.ragged_fixed && (b.shape_ragged || !b.fixed)) out.added.emplace_back(*b.shape, forms[i]);
  }
  return out;
}

void Spec::validate() const {
  auto fail = [&](const std::string& field, const std::string& what) {
    throw Error(fmt::format("{} ({}, {}:{}): {}: {}", name, backend, file, line, field, what));
  };
  if (name.empty() || name.find('/') == std::string::npos || name.front() == '/' || name.back() == '/' ||
      name.find("//") != std::string::npos || name.find_first_of(" \t\n") != std::string::npos)
    fail("name", "must be family/kernel[/variant] with no empty part or space");
  if (dims.empty()) fail("served", "the envelope is empty (no dimension served)");
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim& d = dims[i];
    std::string f = "dim '" + d.name + "'";
    for (size_t j = 0; j < i; ++j)
      if (dims[j].name == d.name) fail(f, "declared twice");
    if (d.served.empty()) fail(f, "serves no size");
    if (d.step <= 0) fail(f, fmt::format("step {} must be positive", d.step));
    if (d.least <= 0) fail(f, fmt::format("least {} must be positive", d.least));
    if (d.tiled) {
      if (d.tile <= 0) fail(f, fmt::format("tile {} must be positive", d.tile));
      if (d.tile % d.step != 0) fail(f, fmt::format("tile {} is not a multiple of its step {}", d.tile, d.step));
      if (d.least > d.tile) fail(f, fmt::format("least size {} is above the tile {}", d.least, d.tile));
    }
    for (int64_t v : d.served)
      if (!valid(d, v))
        fail(f, fmt::format("served size {} is outside the envelope (least {}, step {})", v, d.least, d.step));
  }
  if (sums && sums->summed && !sums->depth) fail("sums", "no depth function");
  if (!replaces.empty() && replaces == name) fail("replaces", "an entry cannot replace itself");
  for (size_t i = 0; i < forms.size(); ++i) {
    if (std::find(launches.begin(), launches.end(), forms[i]) == launches.end())
      fail("picks", fmt::format("form '{}' is not one of its launches", forms[i]));
    if (std::find(forms.begin(), forms.begin() + i, forms[i]) != forms.begin() + i)
      fail("picks", fmt::format("form '{}' named twice", forms[i]));
  }
  for (size_t i = 0; i < invariant.size(); ++i) {
    if (!dim(invariant[i])) fail("invariant", fmt::format("'{}' is not one of its dims", invariant[i]));
    if (std::find(invariant.begin(), invariant.begin() + i, invariant[i]) != invariant.begin() + i)
      fail("invariant", fmt::format("'{}' named twice", invariant[i]));
  }
  if (!far_dim.empty()) {
    if (!dim(far_dim)) fail("far", fmt::format("'{}' is not one of its dims", far_dim));
    for (const auto& d : dims)
      if (!far_shape.has(d.name)) fail("far", fmt::format("the far shape {} has no '{}'", far_shape.str(), d.name));
    for (const auto& [d, v] : far_shape.dims()) {
      if (!dim(d)) fail("far", fmt::format("the far shape names '{}', not one of its dims", d));
      else if (v < 1) fail("far", fmt::format("the far shape's '{}' is {}", d, v));
    }
    if (dim(far_dim) && far_shape.has(far_dim) && far_shape[far_dim] < 2)
      fail("far", fmt::format("the far shape's '{}' must be at least 2 (its rows are checked apart)", far_dim));
  }
  for (const auto& k : known)
    if (k.what.empty()) fail("known", fmt::format("the finding on gate {} says nothing of what fails", gate_name(k.gate)));
  if (control) {
    if (!control_gate) fail("control", "a control must name the gate it fails (.control(gate, why))");
    if (control_why == Why::none) fail("control", "a control must name why its gate fails");
    if (!known.empty()) fail("known", "a control cannot carry known findings");
  } else if (control_gate) {
    fail("control", "registered with KC_KERNEL but calls .control(): register it with KC_CONTROL");
  }
}

Entry&& Entry::served(std::vector<std::pair<std::string, std::vector<int64_t>>> ds) && {
  for (auto& [n, sizes] : ds) {
    Dim* d = nullptr;
    for (auto& x : spec.dims)
      if (x.name == n) d = &x;
    if (!d) d = &spec.dims.emplace_back(Dim{n, {}});
    d->served = std::move(sizes);
  }
  return std::move(*this);
}

static Dim& find_dim(Spec& s, const std::string& n) {
  for (auto& d : s.dims)
    if (d.name == n) return d;
  return s.dims.emplace_back(Dim{n, {}});
}

Entry&& Entry::tile(const std::string& dim, int64_t t, int64_t step, int64_t least) && {
  Dim& d = find_dim(spec, dim);
  d.tiled = true;
  d.tile = t;
  d.step = step;
  d.least = least;
  return std::move(*this);
}

Entry&& Entry::range(const std::string& dim, int64_t least, int64_t step) && {
  Dim& d = find_dim(spec, dim);
  d.least = least;
  d.step = step;
  return std::move(*this);
}

Entry&& Entry::sums(DType acc, std::function<double(const Shape&)> depth, int ops, int mids) && {
  Accum a;
  a.summed = true;
  a.type = acc;
  a.depth = std::move(depth);
  a.ops = ops;
  a.mids = mids;
  if (spec.sums) {  // keep ops, ulps and hidden set before
    a.ulps = spec.sums->ulps;
    a.hidden = spec.sums->hidden;
  }
  spec.sums = std::move(a);
  return std::move(*this);
}

Entry&& Entry::ulp(const std::string& function, double ulps) && {
  if (!spec.sums) spec.sums = Accum{};
  spec.sums->ulps.push_back({function, ulps});
  return std::move(*this);
}

Entry&& Entry::ops(int ops, int mids) && {
  if (!spec.sums) spec.sums = Accum{};
  spec.sums->ops = ops;
  spec.sums->mids = mids;
  return std::move(*this);
}

Entry&& Entry::hidden(const std::string& why) && {
  if (!spec.sums) spec.sums = Accum{};
  spec.sums->hidden = why;
  return std::move(*this);
}

Entry&& Entry::in_place(const std::string& out, const std::string& in) && {
  spec.in_place.emplace_back(out, in);
  return std::move(*this);
}

Entry&& Entry::chained(std::vector<std::string> inputs) && {
  spec.chained = std::move(inputs);
  return std::move(*this);
}

Entry&& Entry::invariant(const std::string& dim) && {
  spec.invariant.push_back(dim);
  return std::move(*this);
}

Entry&& Entry::far(const std::string& dim, Shape shape) && {
  spec.far_dim = dim;
  spec.far_shape = std::move(shape);
  return std::move(*this);
}

Entry&& Entry::replaces(const std::string& n, std::function<void(const Buffers&)> hook) && {
  spec.replaces = n;
  rig.replaced = std::move(hook);
  return std::move(*this);
}

Entry&& Entry::rule(const std::string& text, std::function<std::string(const Case&)> check) && {
  spec.rule = text;
  rig.rule = std::move(check);
  return std::move(*this);
}

Entry&& Entry::launches(std::vector<std::string> names) && {
  spec.launches = std::move(names);
  return std::move(*this);
}

Entry&& Entry::picks(std::function<std::string(const Shape&)> pick) && {
  rig.pick = std::move(pick);
  return std::move(*this);
}

Entry&& Entry::picks(std::vector<std::string> forms, std::function<std::string(const Shape&)> pick) && {
  spec.forms = std::move(forms);
  rig.pick = std::move(pick);
  return std::move(*this);
}

Entry&& Entry::known(Gate gate, const std::string& what) && {
  spec.known.push_back({gate, what});
  return std::move(*this);
}

Entry&& Entry::control(Gate gate, Why why) && {
  spec.control_gate = gate;
  spec.control_why = why;
  return std::move(*this);
}

Entry&& Entry::note(const std::string& text) && {
  spec.note = text;
  return std::move(*this);
}

Entry&& Entry::launch(std::function<void(const Buffers&)> run) && {
  rig.run = std::move(run);
  return std::move(*this);
}

Entry&& Entry::release(std::function<void()> fn) && {
  rig.release = std::move(fn);
  return std::move(*this);
}

}  // namespace kc
