// attention::decode and attention::split: references, ranges, replays and the stated rule.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "attention_common.hpp"
#include "kc/parallel.hpp"

namespace kc::attention {
using namespace detail;

namespace detail {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Where a row's outputs go: o's d values from o_at; its lse (or a partial's m and l) at `at`.
struct Slots {
  Expected *o, *lse, *m, *l;
  size_t o_at, at;
};

// Gate 4's magnitudes: sum p |v| / l for out (it cancels: scale too), |lse| for lse.
void sums_mag(const RowKeys& k, const RowValue& v, int64_t d, const Slots& at) {
  std::vector<double> m(size_t(d), 0.0);
  // Key-major within a slice of components (each component's sum in key order), slices on every core.
  kc::parallel_for(d, [&](int64_t t0, int64_t t1) {
    for (size_t j = 0; j < k.s.size(); ++j) {
      const double p = std::exp(k.s[j] - v.m);
      for (int64_t t = t0; t < t1; ++t) m[size_t(t)] += p * std::fabs(k.v[j][t]);
    }
  }, wide_grain(int64_t(k.s.size())));
  for (int64_t t = 0; t < d; ++t)
    if (at.o) at.o->mag[at.o_at + t] = at.o->scale[at.o_at + t] = at.lse ? m[size_t(t)] / v.l : m[size_t(t)];
  for (Expected* e : {at.lse, at.m, at.l})
    if (e) e->mag[at.at] = e->scale[at.at] = std::fabs(e->want[at.at]);
}

// One row's (or chunk's) outputs: want and, where `ranges`, the attention range.
void write_row(const RowKeys& k, const RowValue& v, const Allow& al, const Steps& st, DType ot, double scale, int64_t d,
               bool ranges, bool sums, const Slots& at) {
  const bool rule = st.empty == Empty::zero && v.empty && at.lse;
  for (int64_t t = 0; t < d; ++t) at.o->want[at.o_at + t] = rule ? 0 : v.o[size_t(t)];
  if (at.lse) at.lse->want[at.at] = rule ? -kInf : v.lse;
  if (at.m) at.m->want[at.at] = v.m, at.l->want[at.at] = v.l;
  if (sums) sums_mag(k, v, d, at);
  if (!ranges) return;
  if (rule || !in_domain(k, d)) {
    for (int64_t t = 0; t < d; ++t) exact_or_any(*at.o, at.o_at + t, rule || v.empty);
    for (Expected* e : {at.lse, at.m, at.l})
      if (e) exact_or_any(*e, at.at, rule || v.empty);
    return;
  }
  std::vector<double> delta(k.s.size());
  for (size_t j = 0; j < k.s.size(); ++j) delta[j] = std::isfinite(k.s[j]) ? score_delta(k.s[j], k.a[j], scale, al) : 0;
  if (at.lse) {  // normalized: out = o / l and lse
    const Spread sp = spread(k.s, delta, al, false);
    kc::parallel_for(d, [&](int64_t t0, int64_t t1) {  // each component's range alone
      for (int64_t t = t0; t < t1; ++t) set_iv(*at.o, at.o_at + t, finish(ratio_range(sp, k.v, t, nullptr, al), al.ops, ot));
    }, wide_grain(int64_t(k.s.size())));
    set_iv(*at.lse, at.at, finish(lse_range(sp, nullptr, al), 0, DType::f32));
    return;
  }
  // A partial's m, l and unnormalized o, each relative to the kernel's own max.
  const Spread sp = spread(k.s, delta, al, true);
  kc::parallel_for(d, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) set_iv(*at.o, at.o_at + t, finish(sum_range(sp, k.v, t, al), 0, DType::f32));
  }, wide_grain(int64_t(k.s.size())));
  set_iv(*at.m, at.at, finish(max_range(k.s, delta), 0, DType::f32));
  set_iv(*at.l, at.at, finish(weight_sum_range(sp, nullptr, al), 0, DType::f32));
}

struct Item {
  int64_t s, r, qh;
};
Item item(const Geometry& g, int64_t i) { return {i / (g.rows * g.q_heads), (i / g.q_heads) % g.rows, i % g.q_heads}; }
Span span_of(const Inputs& in, const Item& it) {
  return visible(in.g, in.lens[size_t(it.s)], in.pos[size_t(it.s * in.g.rows + it.r)]);
}
Span chunk_of(const Geometry& g, Span sp, int64_t c) {
  return {std::max(sp.lo, c * g.chunk), std::max(std::max(sp.lo, c * g.chunk), std::min(sp.end, (c + 1) * g.chunk))};
}
int64_t grain(const Geometry& g) { return std::max<int64_t>(1, 4096 / (g.keys * g.d)); }

// Both entries' shared rig: inputs, and outputs named for the form.
// prompt: attention::prompt's gate 1 plants (attention_common.hpp) beside decode's.
Entry attention_entry(Cache cache, int64_t page, int64_t chunk, std::function<void(Case&, const Geometry&)> outs,
                      bool prompt = false) {
  Entry e;
  set_plants(e.rig, cache, prompt);
  e.rig.fills = {fills::kOffset};
  e.rig.prepare = [cache, page, chunk, outs, prompt](Case& c) {
    const Geometry g = geometry(cache, c.shape(), page, chunk);
    prepare_inputs(c, g, prompt);
    outs(c, g);
  };
  return e;
}
}  // namespace

Entry rows_entry(Cache cache, DType out, Steps st, int64_t page, bool prompt) {
  if (out != DType::bf16 && out != DType::f32)
    throw Error(std::string(prompt ? "attention::prompt" : "attention::decode") + ": out is bf16 or f32");
  Entry e = attention_entry(cache, page, 0, [out](Case& c, const Geometry& g) {
    Buf(c, "out", out, size_t(g.seqs * g.rows * g.q_heads * g.d), Role::out);
    c.out<float>("lse", size_t(g.seqs * g.rows * g.q_heads));
  }, prompt);
  auto ref = [=](const Case& c) {
    const Geometry g = geometry(cache, c.shape(), page);
    const Inputs in = read_inputs(c, g);
    const Allow al = allow_of(c, st, "keys");
    const bool ranges = c.fill().kind != FillKind::nonfinite, sums = c.fill().kind == FillKind::sums;
    const int64_t n = g.seqs * g.rows * g.q_heads;
    Expected o, lse;
    size_up(o, "out", size_t(n * g.d), ranges, sums);
    size_up(lse, "lse", size_t(n), ranges, sums);
    kc::parallel_for(n, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        const Item it = item(g, i);
        const RowKeys k = row_keys(in, it.s, it.r, it.qh, span_of(in, it));
        write_row(k, row_value(k, g.d, false, st.base), al, st, out, g.scale, g.d, ranges, sums,
                  {&o, &lse, nullptr, nullptr, size_t(i * g.d), size_t(i)});
      }
    }, grain(g));
    return results(o, lse);
  };
  e.rig.reference = ref;
  e.rig.simulate = [=](const Case& c, SumFormat f, SumOrder so) {
    const Geometry g = geometry(cache, c.shape(), page);
    const Inputs in = read_inputs(c, g);
    const int64_t n = g.seqs * g.rows * g.q_heads;
    std::vector<double> o(static_cast<size_t>(n * g.d)), lse(static_cast<size_t>(n));
    kc::parallel_for(n, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        const Item it = item(g, i);
        const RowValue v = row_replay(in, it.s, it.r, it.qh, span_of(in, it), f, so, false, st.base);
        const bool rule = st.empty == Empty::zero && v.empty;
        for (int64_t t = 0; t < g.d; ++t) o[size_t(i * g.d + t)] = rule ? 0 : v.o[size_t(t)];
        lse[size_t(i)] = rule ? -kInf : v.lse;
      }
    }, grain(g));
    return std::vector<std::vector<double>>{o, lse};
  };
  if (st.empty == Empty::zero)
    std::move(e).rule(kRuleText, [ref](const Case& c) { return check_rule(c, ref(c), c.shape()["d"]); });
  return e;
}
}  // namespace detail

Entry decode(Cache cache, DType out, Steps st, int64_t page) { return rows_entry(cache, out, st, page, false); }

Entry split(Cache cache, Partials form, int64_t chunk, Steps st, int64_t page) {
  if (cache == Cache::ring) throw Error("attention::split: a ring's window is one chunk's work; split a linear or paged cache");
  if (chunk < 1) throw Error("attention::split: a chunk holds at least one key");
  const bool mlo = form == Partials::mlo;
  Entry e = attention_entry(cache, page, chunk, [mlo](Case& c, const Geometry& g) {
    const size_t n = size_t(g.seqs * g.rows * g.q_heads * g.chunks);
    if (mlo) c.out<float>("part_m", n), c.out<float>("part_l", n);
    else c.out<float>("part_lse", n);
    c.out<float>("part_o", n * size_t(g.d));
  });
  auto ref = [=](const Case& c) {
    const Geometry g = geometry(cache, c.shape(), page, chunk);
    const Inputs in = read_inputs(c, g);
    const Allow al = allow_of(c, st, "keys");
    const bool ranges = c.fill().kind != FillKind::nonfinite, sums = c.fill().kind == FillKind::sums;
    const int64_t n = g.seqs * g.rows * g.q_heads;
    Expected o, lse, m, l;
    size_up(o, "part_o", size_t(n * g.chunks * g.d), ranges, sums);
    size_up(mlo ? m : lse, mlo ? "part_m" : "part_lse", size_t(n * g.chunks), ranges, sums);
    if (mlo) size_up(l, "part_l", size_t(n * g.chunks), ranges, sums);
    kc::parallel_for(n, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        const Item it = item(g, i);
        const Span sp = span_of(in, it);
        for (int64_t ch = 0; ch < g.chunks; ++ch) {
          const RowKeys k = row_keys(in, it.s, it.r, it.qh, chunk_of(g, sp, ch));
          const size_t at = size_t(i * g.chunks + ch);
          write_row(k, row_value(k, g.d, mlo, st.base), al, st, DType::f32, g.scale, g.d, ranges, sums,
                    {&o, mlo ? nullptr : &lse, mlo ? &m : nullptr, mlo ? &l : nullptr, at * size_t(g.d), at});
        }
      }
    }, std::max<int64_t>(1, grain(g) / g.chunks));
    return mlo ? results(o, m, l) : results(o, lse);
  };
  e.rig.reference = ref;
  e.rig.simulate = [=](const Case& c, SumFormat f, SumOrder so) {
    const Geometry g = geometry(cache, c.shape(), page, chunk);
    const Inputs in = read_inputs(c, g);
    const int64_t n = g.seqs * g.rows * g.q_heads;
    std::vector<double> o(static_cast<size_t>(n * g.chunks * g.d)), a(static_cast<size_t>(n * g.chunks)), b(mlo ? a.size() : 0);
    kc::parallel_for(n, [&](int64_t lo, int64_t end) {
      for (int64_t i = lo; i < end; ++i) {
        const Item it = item(g, i);
        const Span sp = span_of(in, it);
        for (int64_t ch = 0; ch < g.chunks; ++ch) {
          const RowValue v = row_replay(in, it.s, it.r, it.qh, chunk_of(g, sp, ch), f, so, mlo, st.base);
          const size_t at = size_t(i * g.chunks + ch);
          const bool rule = !mlo && st.empty == Empty::zero && v.empty;
          for (int64_t t = 0; t < g.d; ++t) o[at * size_t(g.d) + size_t(t)] = rule ? 0 : v.o[size_t(t)];
          if (mlo) a[at] = v.m, b[at] = v.l;
          else a[at] = rule ? -kInf : v.lse;
        }
      }
    });
    return mlo ? std::vector<std::vector<double>>{o, a, b} : std::vector<std::vector<double>>{o, a};
  };
  if (!mlo && st.empty == Empty::zero)
    std::move(e).rule(kRuleText, [ref](const Case& c) { return check_rule(c, ref(c), c.shape()["d"]); });
  return e;
}

}  // namespace kc::attention
