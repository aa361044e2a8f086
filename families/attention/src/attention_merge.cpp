// attention::merge: the split's partials merged into out and lse (attention.hpp).
#include <cmath>
#include <limits>
#include <optional>

#include "attention_common.hpp"
#include "kc/parallel.hpp"

namespace kc::attention {
using namespace detail;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
using plants::At;
using plants::Kind;

struct MergeDims {
  int64_t rows, heads, chunks, d;
  int64_t n() const { return rows * heads; }
};
MergeDims dims(const Shape& s) {
  MergeDims m{s["rows"], s["q_heads"], s["chunks"], s["d"]};
  if (m.rows < 1 || m.heads < 1 || m.chunks < 1 || m.d < 1)
    throw Error("attention::merge: shape " + s.str() + " needs rows, q_heads, chunks and d >= 1");
  return m;
}
// Non-empty partials of row r: the first chunks - r % (chunks + 1) (a row past some chunks' keys).
int64_t filled(const MergeDims& m, int64_t r) { return m.chunks - r % (m.chunks + 1); }

// Plants: single values in each partial operand (part_m or part_lse and part_l over row 0's chunks,
// part_o over its last chunk's d values), then every partial empty, or all but the last.
enum class Whole : uint8_t { none, empty, all_but_last };
struct MPlant {
  plants::Plant p;
  Whole whole = Whole::none;
};
std::vector<MPlant> merge_plants(bool mlo) {
  std::vector<MPlant> v;
  std::vector<plants::Operand> ops{{mlo ? "part_m" : "part_lse", plants::kNoRows}};
  if (mlo) ops.push_back({"part_l", plants::kNoRows});
  ops.push_back({"part_o", plants::kNoRows});
  for (auto& p : plants::standard(ops)) v.push_back({p});
  v.push_back({{"part_o", Kind::row_ninf, At::last}, Whole::empty});
  v.push_back({{"part_o", Kind::row_ninf, At::last}, Whole::all_but_last});
  return v;
}

// The merge's terms for one row: scores (m_c, or lse_c in natural units), denominators, o rows.
struct Terms {
  std::vector<double> s, b;
  std::vector<const double*> o;
};
}  // namespace

Entry merge(Partials form, DType out, Steps st) {
  if (out != DType::bf16 && out != DType::f32) throw Error("attention::merge: out is bf16 or f32");
  const bool mlo = form == Partials::mlo;
  const bool zero_rule = st.empty == Empty::zero;
  static const std::vector<MPlant> plants_mlo = merge_plants(true), plants_lse = merge_plants(false);
  const std::vector<MPlant>& pl = mlo ? plants_mlo : plants_lse;
  const char* mname = mlo ? "part_m" : "part_lse";
  const double to_nat = !mlo && st.base == LseBase::two ? M_LN2 : 1.0;
  Entry e;
  for (const auto& p : pl)
    e.rig.plants.push_back(p.whole == Whole::empty          ? "every partial empty"
                           : p.whole == Whole::all_but_last ? "every partial empty but the last"
                                                            : plants::name(p.p));
  std::vector<plants::Plant> flat;
  for (const auto& p : pl) flat.push_back(p.p);
  e.rig.plants_at_scale = plants::leading_basic(flat);
  e.rig.plants_at_edges = plants::at_edges(flat);  // the whole rows' kind marks them for it
  e.rig.prepare = [=, &pl](Case& c) {
    const MergeDims m = dims(c.shape());
    const size_t n = size_t(m.n() * m.chunks);
    Buf pm(c, mname, DType::f32, n, Role::in);
    std::optional<Buf> pl_;
    if (mlo) pl_.emplace(c, "part_l", DType::f32, n, Role::in);
    Buf po(c, "part_o", DType::f32, n * size_t(m.d), Role::in);
    Buf(c, "out", out, size_t(m.n() * m.d), Role::out);
    c.out<float>("lse", size_t(m.n()));
    Rng r = rng_for(c, "partials");
    const bool sums = c.fill().kind == FillKind::sums;
    auto set_o = [&](size_t at, int64_t t, double v) { po.set(at * size_t(m.d) + size_t(t), v); };
    for (int64_t i = 0; i < m.n(); ++i) {
      const int64_t row = i / m.heads, h = i % m.heads, k = sums ? m.chunks : filled(m, row);
      for (int64_t ch = 0; ch < m.chunks; ++ch) {
        const size_t at = size_t(i * m.chunks + ch);
        if (ch >= k) {  // an empty partial, as float64's (or the rule's) split writes it
          pm.set(at, -kInf);
          if (mlo) pl_->set(at, 0);
          for (int64_t t = 0; t < m.d; ++t) set_o(at, t, mlo || zero_rule ? 0.0 : std::nan(""));
          continue;
        }
        // m_c over several units, climbing along the chunks on even heads (an online merge rescales).
        const double mc = sums ? 0 : 12 * r.uniform() - 6 + (h % 2 ? 0 : 0.75 * double(ch));
        const double lc = sums ? double(r.range(1, 64)) : 1 + 63 * r.uniform();
        pm.set(at, mlo ? mc : (mc + std::log(lc)) / to_nat);
        if (mlo) pl_->set(at, lc);
        if (!sums)
          for (int64_t t = 0; t < m.d; ++t) set_o(at, t, (mlo ? lc : 1.0) * spread(r, -2, 1));
      }
      if (sums)  // o over the chunks: integers summing exactly, fp16 overflowing (m_c = lse_c = 0),
        for (int64_t t = 0; t < m.d; ++t) {  // the first redrawn until every replay misses out's bound by far
          std::vector<double> row_o;
          for (int k = 0; k < (t == 0 ? 64 : 1); ++k) {  // shuffled: a short row's lanes meet its mirrors
            row_o = mirrored_row(r, m.chunks, DType::f32);
            for (size_t j = row_o.size() - 1; j > 0; --j) std::swap(row_o[j], row_o[size_t(r.range(0, int64_t(j)))]);
            double mag = 0;
            for (double x : row_o) mag += std::fabs(x);
            if (replays_miss(row_o, 1, 0x1p-12 * mag + 2)) break;
          }
          for (int64_t ch = 0; ch < m.chunks; ++ch) set_o(size_t(i * m.chunks + ch), t, row_o[size_t(ch)]);
        }
      if (sums && !mlo)
        for (int64_t ch = 0; ch < m.chunks; ++ch) pm.set(size_t(i * m.chunks + ch), 0);
    }
    if (c.fill().kind != FillKind::nonfinite) return;
    const MPlant& p = pl.at(size_t(c.fill().plant));
    const size_t base = 0;  // row 0, head 0: every partial filled
    if (p.whole != Whole::none) {
      for (int64_t ch = 0; ch + (p.whole == Whole::all_but_last) < m.chunks; ++ch) {
        pm.set(base + size_t(ch), -kInf);
        if (mlo) pl_->set(base + size_t(ch), 0);
        for (int64_t t = 0; t < m.d; ++t) set_o(base + size_t(ch), t, mlo || zero_rule ? 0.0 : std::nan(""));
      }
      return;
    }
    Buf& b = p.p.operand == "part_o" ? po : p.p.operand == "part_l" ? *pl_ : pm;
    const int64_t cols = p.p.operand == "part_o" ? m.d : m.chunks;
    const size_t at = p.p.operand == "part_o" ? size_t(m.chunks - 1) * size_t(m.d) : 0;
    plants::write(b.data(), DType::f32, at, cols, p.p.kind, plants::column(p.p, c.fill(), cols));
  };
  // One row's terms, read back as stored.
  auto terms = [=](const std::vector<double>& pm, const std::vector<double>& plv, const std::vector<double>& po,
                   const MergeDims& m, int64_t i) {
    Terms t;
    for (int64_t ch = 0; ch < m.chunks; ++ch) {
      const size_t at = size_t(i * m.chunks + ch);
      t.s.push_back(pm[at] * to_nat);
      t.b.push_back(mlo ? plv[at] : 1.0);
      t.o.push_back(&po[at * size_t(m.d)]);
    }
    return t;
  };
  // The formula with sums by `sum`: float64's, or a replay.
  auto formula = [=](const Terms& t, int64_t d, auto sum, double* o, double& lse) {
    double M = -kInf;
    bool nan = false;
    for (double x : t.s) nan |= std::isnan(x), M = std::isnan(x) ? M : std::max(M, x);
    if (nan) M = std::nan("");
    const bool empty = M == -kInf;
    const double c0 = empty ? 0 : M;
    std::vector<double> w(t.s.size()), x(t.s.size());
    for (size_t j = 0; j < w.size(); ++j) w[j] = std::exp(t.s[j] - c0), x[j] = w[j] * t.b[j];
    const double L = sum(x);
    for (int64_t k = 0; k < d; ++k) {
      for (size_t j = 0; j < w.size(); ++j) x[j] = w[j] * t.o[j][k];
      o[k] = zero_rule && empty ? 0 : sum(x) / L;
    }
    lse = zero_rule && empty ? -kInf : (c0 + std::log(L)) * (st.base == LseBase::two ? M_LOG2E : 1.0);
    return empty;
  };
  auto plain = [](const std::vector<double>& x) {
    double s = 0;
    for (double y : x) s += y;
    return s;
  };
  auto ref = [=](const Case& c) {
    const MergeDims m = dims(c.shape());
    const auto pm = read(c, mname), po = read(c, "part_o");
    const auto plv = mlo ? read(c, "part_l") : std::vector<double>();
    const Allow al = allow_of(c, st, "chunks");
    const bool ranges = c.fill().kind != FillKind::nonfinite, sums = c.fill().kind == FillKind::sums;
    Expected o, lse;
    size_up(o, "out", size_t(m.n() * m.d), ranges, sums);
    size_up(lse, "lse", size_t(m.n()), ranges, sums);
    kc::parallel_for(m.n(), [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        const Terms t = terms(pm, plv, po, m, i);
        const size_t oa = size_t(i * m.d);
        const bool empty = formula(t, m.d, plain, &o.want[oa], lse.want[size_t(i)]);
        if (sums) {
          double den = 0;
          for (size_t j = 0; j < t.s.size(); ++j) den += std::exp(t.s[j]) * t.b[j];
          for (int64_t k = 0; k < m.d; ++k) {
            double a = 0;
            for (size_t j = 0; j < t.s.size(); ++j) a += std::exp(t.s[j]) * std::fabs(t.o[j][k]);
            o.mag[oa + size_t(k)] = o.scale[oa + size_t(k)] = a / den;
          }
          lse.mag[size_t(i)] = lse.scale[size_t(i)] = std::fabs(lse.want[size_t(i)]);
        }
        if (!ranges) continue;
        bool dom = !empty && std::isfinite(lse.want[size_t(i)]);
        for (size_t j = 0; j < t.s.size() && dom; ++j)
          for (int64_t k = 0; k < m.d && dom; ++k) dom = !std::isnan(t.s[j]) && std::isfinite(t.b[j]) && std::isfinite(t.o[j][k]);
        if (!dom) {
          for (int64_t k = 0; k < m.d; ++k) exact_or_any(o, oa + size_t(k), empty);
          exact_or_any(lse, size_t(i), empty);
          continue;
        }
        const Spread sp = spread(t.s, std::vector<double>(t.s.size(), 0.0), al, false);
        for (int64_t k = 0; k < m.d; ++k)
          set_iv(o, oa + size_t(k), finish(ratio_range(sp, t.o, k, t.b.data(), al), al.ops, out));
        set_iv(lse, size_t(i), finish(lse_range(sp, t.b.data(), al), 0, DType::f32));
      }
    }, std::max<int64_t>(1, 4096 / (m.chunks * m.d)));
    return results(o, lse);
  };
  e.rig.reference = ref;
  e.rig.simulate = [=](const Case& c, SumFormat f, SumOrder so) {
    const MergeDims m = dims(c.shape());
    const auto pm = read(c, mname), po = read(c, "part_o");
    const auto plv = mlo ? read(c, "part_l") : std::vector<double>();
    std::vector<double> o(static_cast<size_t>(m.n() * m.d)), lse(static_cast<size_t>(m.n()));
    auto rep = [&](const std::vector<double>& x) { return replay_sum(x.data(), x.size(), f, so); };
    for (int64_t i = 0; i < m.n(); ++i) formula(terms(pm, plv, po, m, i), m.d, rep, &o[size_t(i * m.d)], lse[size_t(i)]);
    return std::vector<std::vector<double>>{o, lse};
  };
  if (zero_rule)
    std::move(e).rule(kRuleText, [ref](const Case& c) { return check_rule(c, ref(c), c.shape()["d"]); });
  return e;
}

}  // namespace kc::attention
