// attention/split/* on the CPU: each row's keys cut into chunks, a partial a chunk by the same
// online softmax as the decode kernels (cpu_attention.hpp): (max, sum, unnormalized P.V) or, with
// the stated empty-row rule, (normalized P.V, lse) in base-2 units (scores times scale * log2(e),
// exp2, log2).
#include "../cpu_attention.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"

namespace {
using kc::attention::Cache;
using namespace kc::attention_cpu;

void split_cpu(const kc::Buffers& b, Cache cache, int64_t page, int64_t chunk, bool mlo, bool base2) {
  const kc::attention::Geometry g = kc::attention::geometry(cache, b.shape(), page, chunk);
  const kc::bf16 *q = b.in<kc::bf16>("q"), *k = b.in<kc::bf16>("k"), *v = b.in<kc::bf16>("v");
  const int32_t *lens = b.in<int32_t>("lens"), *pos = b.in<int32_t>("pos");
  const int32_t* table = cache == Cache::paged ? b.in<int32_t>("page_table") : nullptr;
  float* po = b.out<float>("part_o");
  float *pm = mlo ? b.out<float>("part_m") : nullptr, *pl = mlo ? b.out<float>("part_l") : nullptr;
  float* plse = mlo ? nullptr : b.out<float>("part_lse");
  const float sc = base2 ? float(g.scale * M_LOG2E) : g.scale;
  kc::parallel_for(g.seqs * g.rows * g.q_heads, [&](int64_t i0, int64_t i1) {
    std::vector<float> qf(size_t(g.d));
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t s = i / (g.rows * g.q_heads), r = (i / g.q_heads) % g.rows, h = (i % g.q_heads) / g.group;
      const auto [lo, end] = span(lens[s], pos[s * g.rows + r], g.window);
      for (int64_t t = 0; t < g.d; ++t) qf[size_t(t)] = load(q, i * g.d + t);
      auto key = [&](int64_t j) -> std::pair<const kc::bf16*, const kc::bf16*> {
        const int64_t off = kv_at(g, table, s, j, h, {}, lens[s]);
        return {k + off, v + off};
      };
      for (int64_t c = 0; c < g.chunks; ++c) {
        const int64_t a = std::max(lo, c * chunk), e = std::max(a, std::min(end, (c + 1) * chunk));
        Row st(g.d);
        online(st, qf.data(), g.d, sc, a, e, key, false, base2);
        const int64_t at = i * g.chunks + c;
        if (!mlo) {
          finish(st, g.d, /*zero_rule=*/true, base2, po + at * g.d, plse + at);
          continue;
        }
        pm[at] = st.m, pl[at] = st.l;
        for (int64_t t = 0; t < g.d; ++t) po[at * g.d + t] = st.acc[size_t(t)];
      }
    }
  });
}

double key_depth(int64_t span) { return double(span + span / kTile + 2); }

}  // namespace

// Chunks of 256 keys over a paged cache: (m, l, unnormalized o), float64's classes.
KC_KERNEL("attention/split/paged_mlo", cpu) {
  return kc::attention::split(Cache::paged, kc::attention::Partials::mlo, 256, {}, 16)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {1}}, {"group", {4}}, {"d", {64}}, {"keys", {1, 700}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min<int64_t>(s["keys"], 256)); }, 0)
      .ulp("expf", 1)
      .launch([](const kc::Buffers& b) { split_cpu(b, Cache::paged, 16, 256, true, false); });
}

// Chunks of 128 keys over a linear cache: (o, lse) in base 2, an empty chunk 0 and -Inf (stated).
KC_KERNEL("attention/split/linear_lse2", cpu) {
  kc::attention::Steps st;
  st.score_ops = 2;  // the dot times fp32(scale * log2(e)), itself rounded
  st.empty = kc::attention::Empty::zero;
  st.base = kc::attention::LseBase::two;
  return kc::attention::split(Cache::linear, kc::attention::Partials::lse, 128, st)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {128}}, {"keys", {1, 400}}})
      .tile("keys", kTile, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min<int64_t>(s["keys"], 128)); }, 1)
      .ulp("exp2f", 1)
      .ulp("log2f", 1)
      .launch([](const kc::Buffers& b) { split_cpu(b, Cache::linear, 0, 128, false, true); });
}
