// The formula's Entry: its buffers declared and filled for every gate (spread values, plants, named
// fills, ids' fills, gate 4's integers), and the hooks that evaluate it (reference, simulate).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kc/families/blocks.hpp"
#include "kc/parallel.hpp"
#include "run.hpp"

namespace kc::formula {

using detail::Buffer;
using detail::Kind;

detail::ValuesMemo::Table detail::ValuesMemo::get(const std::string& shape, const std::function<std::vector<double>()>& make) {
  {
    std::lock_guard lock(m_);
    for (const auto& [k, t] : kept_)
      if (k == shape) return t;
  }
  auto t = std::make_shared<const std::vector<double>>(make());  // outside the lock: make runs in parallel
  std::lock_guard lock(m_);
  kept_.emplace_back(shape, t);
  if (kept_.size() > kKept) kept_.pop_front();
  return t;
}

namespace {

constexpr const char* kIdsRepeated = "ids_repeated";
constexpr const char* kIdsLast = "ids_last";
constexpr const char* kBadIds = "bad_ids";

int64_t count_of(const Buffer& b, const Shape& s) {
  int64_t n = 1;
  for (const auto& e : b.ext) n *= e.dim.empty() ? e.n : s[e.dim];
  return n;
}

Codes codes_of(Code c) {
  switch (c) {
    case Code::e4m3: return Codes::e4m3;
    case Code::e5m2: return Codes::e5m2;
    case Code::e2m1: return Codes::e2m1;
    case Code::int8: return Codes::int8;
  }
  return Codes::none;
}

// Gate 4's integers for one input, row by row (a row: its last extent): +-(3..15), and one +-2^16 a
// row (2^15 in fp16, which holds no 2^16) at a random place. A term holding it, times any other, is
// past fp16's range in every order, and bf16 (8 bits) drops the small terms beside it; every sum of
// such terms below 2^24 stays exact in fp32, in any order.
void fill_integers(blocks::Buf& b, blocks::Rng& r, int64_t cols) {
  const double large = b.type() == DType::f16 ? 0x1p15 : 0x1p16;
  for (size_t i = 0; i < b.size(); ++i) b.set_exact(i, double(r.range(3, 15)) * (r.coin() ? 1 : -1));
  for (size_t row = 0; row * size_t(cols) < b.size(); ++row)
    b.set_exact(row * size_t(cols) + size_t(r.range(0, cols - 1)), r.coin() ? large : -large);
}

void fill_ids(blocks::Buf& b, const Case& c, int64_t rows, BadId bad) {
  blocks::Rng r = blocks::rng_for(c, "ids");
  const std::string& dist = c.fill().dist;
  const int64_t same = r.range(0, rows - 1);
  for (size_t i = 0; i < b.size(); ++i) {
    int64_t id = r.range(0, rows - 1);
    if (dist == kIdsRepeated) id = same;
    if (dist == kIdsLast) id = rows - 1;
    // Bad ids: one in two, negative or past the end, beside valid ones.
    if (dist == kBadIds && bad != BadId::never && i % 2 == 0) id = i % 4 ? -1 - r.range(0, 3) : rows + r.range(0, 3);
    b.set_exact(i, double(id));
  }
}

void prepare(const detail::Def& def, const std::vector<plants::Plant>& plants, Case& c) {
  const Shape& s = c.shape();
  const Fill& f = c.fill();
  for (const auto& b : def.bufs) {
    const int64_t n = count_of(b, s), cols = b.ext.empty() ? 1 : (b.ext.back().dim.empty() ? b.ext.back().n : s[b.ext.back().dim]);
    if (n < 1) throw Error(fmt::format("formula: '{}' has no elements at {}", b.name, s.str()));
    switch (b.kind) {
      case Kind::out: blocks::Buf(c, b.name, b.type, size_t(n), Role::out); break;
      case Kind::codes:
        if (b.code == Code::e2m1 && n % 2) throw Error(fmt::format("formula: e2m1 codes '{}' need an even count", b.name));
        if (b.code == Code::int8) c.out<int8_t>(b.name, size_t(n));
        else c.out<uint8_t>(b.name, size_t(b.code == Code::e2m1 ? n / 2 : n));
        break;
      case Kind::ids: {
        blocks::Buf ids(c, b.name, DType::i32, size_t(n), Role::in);
        if (b.table.empty()) {
          fill_ids(ids, c, b.count, b.bad);
          break;
        }
        const Buffer& t = def.bufs[size_t(def.find(b.table))];
        fill_ids(ids, c, t.ext[0].dim.empty() ? t.ext[0].n : s[t.ext[0].dim], b.bad);
        break;
      }
      case Kind::in: {
        blocks::Buf x(c, b.name, b.type, size_t(n), Role::in);
        if (b.opts.values) {
          const auto table = b.memo->get(s.str(), [&b, &s, n] {
            std::vector<double> t(static_cast<size_t>(n));
            double* at = t.data();
            parallel_for(n, [&b, &s, at](int64_t lo, int64_t hi) {
              for (int64_t i = lo; i < hi; ++i) at[i] = b.opts.values(s, i);
            }, 4096);
            return t;
          });
          for (int64_t i = 0; i < n; ++i) x.set(size_t(i), (*table)[size_t(i)]);
          break;
        }
        blocks::Rng r = blocks::rng_for(c, b.name);
        const blocks::Dims d{n / cols, cols};
        if (f.kind == FillKind::sums && b.opts.sums_fill) {
          const std::vector<double> v = b.opts.sums_fill(c, n / cols, cols);
          if (int64_t(v.size()) != n)
            throw Error(fmt::format("formula: gate 4's fill of '{}' gave {} values for {} elements", b.name, v.size(), n));
          for (size_t i = 0; i < v.size(); ++i) x.set_exact(i, v[i]);
          break;
        }
        if (f.kind == FillKind::sums && b.opts.sums == Sums::integers) {
          fill_integers(x, r, cols);
          break;
        }
        const bool named = b.opts.fills && f.kind == FillKind::random && !f.dist.empty() && fills::known(f.dist);
        if (!(named && blocks::fill_dist(x, c, b.name, d, true, b.opts.range)))
          blocks::fill_spread(x, r, b.opts.lo, b.opts.hi, !b.opts.positive);
        if (b.opts.plants) blocks::plant_if(x, c, plants, b.name, d, true);
        break;
      }
    }
  }
}

// Every output's Expected from one evaluation, in declaration order.
std::vector<Expected> expected(detail::Run& r) {
  std::vector<Expected> v;
  for (size_t i = 0; i < r.def.bufs.size(); ++i) {
    const Buffer& b = r.def.bufs[i];
    if (b.input()) continue;
    detail::Stored& s = r.outs[i];
    Expected e;
    e.name = b.name;
    e.want = std::move(s.want);
    e.codes = b.kind == Kind::codes ? codes_of(b.code) : Codes::none;
    e.rule = b.rule;
    e.rule_nonfinite = b.rule_kind == Rule::nonfinite;
    // m holds the inexact sums alone (an exact one adds nothing), so gamma stays on it at gate 4.
    e.exact_sums = false;
    if (!s.err.empty()) {
      if (std::find(s.pinned.begin(), s.pinned.end(), 1) != s.pinned.end()) {
        // Checked by intervals: those not pinned get their bound as one, rounded as stored.
        for (size_t k = 0; k < s.pinned.size(); ++k) {
          if (s.pinned[k] || !std::isfinite(e.want[k])) {
            if (!std::isfinite(e.want[k])) s.lo[k] = s.hi[k] = e.want[k];
            continue;
          }
          const double b0 = s.err[k] + r.gamma * s.mag[k];
          const Interval iv = Interval::of(e.want[k] - b0, e.want[k] + b0).rounded(b.type);
          s.lo[k] = iv.lo, s.hi[k] = iv.hi;
        }
        e.lo = std::move(s.lo);
        e.hi = std::move(s.hi);
      } else {
        e.mag = std::move(s.mag);
        e.err = std::move(s.err);
      }
    }
    v.push_back(std::move(e));
  }
  return v;
}

}  // namespace

Formula::Formula() : def_(std::make_shared<detail::Def>()) {}

static Buffer& add(detail::Def& d, Buffer b) {
  if (d.find(b.name) >= 0) throw Error(fmt::format("formula: buffer '{}' declared twice", b.name));
  if (b.ext.empty() || b.ext.size() > 8) throw Error(fmt::format("formula: '{}' needs 1 to 8 extents", b.name));
  d.bufs.push_back(std::move(b));
  return d.bufs.back();
}

Formula& Formula::in(const std::string& name, DType t, Extents e, In opts) {
  if (!dtype_is_float(t)) throw Error(fmt::format("formula: input '{}' of {}: ids are declared by .ids()", name, dtype_name(t)));
  Buffer b{name, Kind::in, t, std::move(e)};
  b.opts = std::move(opts);
  add(*def_, std::move(b));
  return *this;
}

Formula& Formula::ids(const std::string& name, Extents e, const std::string& table, BadId bad) {
  const int t = def_->find(table);
  if (t < 0 || !def_->bufs[size_t(t)].input())
    throw Error(fmt::format("formula: ids '{}' index '{}', which is no input declared before them", name, table));
  Buffer& b = add(*def_, Buffer{name, Kind::ids, DType::i32, std::move(e)});
  b.table = table;
  b.bad = bad;
  for (const char* f : {kIdsRepeated, kIdsLast}) def_->fills.push_back(f);
  if (bad != BadId::never) def_->fills.push_back(kBadIds);
  return *this;
}

Formula& Formula::ids(const std::string& name, Extents e, int64_t count) {
  if (count < 1 || count > (int64_t(1) << 31))
    throw Error(fmt::format("formula: ids '{}' below {}: the count must be in 1..2^31", name, count));
  Buffer& b = add(*def_, Buffer{name, Kind::ids, DType::i32, std::move(e)});
  b.count = count;
  for (const char* f : {kIdsRepeated, kIdsLast}) def_->fills.push_back(f);
  return *this;
}

Formula& Formula::out(const std::string& name, DType t, Extents e) {
  add(*def_, Buffer{name, Kind::out, t, std::move(e)});
  return *this;
}

Formula& Formula::codes(const std::string& name, Code c, Extents e) {
  Buffer& b = add(*def_, Buffer{name, Kind::codes, c == Code::int8 ? DType::i8 : DType::u8, std::move(e)});
  b.code = c;
  return *this;
}

Formula& Formula::rule(const std::string& output, const std::string& text, Rule r) {
  const int at = def_->find(output);
  if (at < 0 || def_->bufs[size_t(at)].input())
    throw Error(fmt::format("formula: a rule for '{}', which is no output declared before it", output));
  def_->bufs[size_t(at)].rule = text;
  def_->bufs[size_t(at)].rule_kind = r;
  return *this;
}

Formula& Formula::fills(std::vector<std::string> names) {
  fills::check(names);
  def_->fills.insert(def_->fills.begin(), names.begin(), names.end());
  return *this;
}

Formula& Formula::each_impl(std::vector<std::string> dims, std::function<void(Ctx<double>&)> d,
                            std::function<void(Ctx<Track>&)> t) {
  def_->blocks.push_back({std::move(dims), std::move(d), std::move(t)});
  return *this;
}

Entry Formula::entry() const {
  auto def = def_;
  if (def->blocks.empty()) throw Error("formula: no arithmetic (.each)");
  std::vector<plants::Operand> ops;
  for (const auto& b : def->bufs)
    if (b.kind == Kind::in && b.opts.plants && !b.opts.values) ops.push_back({b.name, b.opts.rows});
  auto plants = std::make_shared<std::vector<plants::Plant>>(plants::standard(ops));
  Entry e;
  plants::set(e.rig, *plants);
  e.rig.fills = def->fills;
  std::vector<std::string> rules;
  for (const auto& b : def->bufs)
    if (!b.rule.empty()) rules.push_back(fmt::format("{}: {}", b.name, b.rule));
  if (!rules.empty()) e.spec.rule = fmt::format("{}", fmt::join(rules, "; "));
  e.rig.rules_per_output = !rules.empty();
  e.rig.prepare = [def, plants](Case& c) { prepare(*def, *plants, c); };
  e.rig.reference = [def](const Case& c) {
    detail::Run r(*def, c, c.fill().kind == FillKind::nonfinite ? detail::Mode::reference : detail::Mode::track);
    detail::evaluate(r);
    if (r.summed && !r.declared)
      throw Error("formula: it sums (f.sum): declare the kernel's sums with .sums(type, depth)");
    return expected(r);
  };
  e.rig.simulate = [def](const Case& c, SumFormat f, SumOrder o) {
    detail::Run r(*def, c, detail::Mode::replay);
    r.format = f;
    r.order = o;
    detail::evaluate(r);
    std::vector<std::vector<double>> v;
    for (size_t i = 0; i < def->bufs.size(); ++i)
      if (!def->bufs[i].input()) v.push_back(std::move(r.outs[i].want));
    return v;
  };
  return e;
}

}  // namespace kc::formula
