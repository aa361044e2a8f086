// attention/prompt/* on the CPU: prefill, many query rows a sequence (attention.hpp's decode formula
// with rows up to keys: rows < keys is a prefill over a cached prefix). FlashAttention-2's blocking:
// a block takes kQT query rows of one (sequence, q head), stages each 64-key tile of K and V once as
// fp32 for all of them, and runs each row's online softmax in fp32 over the tiles (one max, one
// rescale a tile at most). The key loop starts at the tile of the block's first visible key (a
// window's tiles fully left of every row are skipped) and stops after the diagonal tile, the one
// holding the block's last row's position. Masked keys are skipped, never weighted by 0 (0 * Inf).
#include <algorithm>
#include <climits>

#include "../cpu_attention.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"

namespace {
using kc::attention::Cache;
using kc::attention_cpu::kTile;

inline constexpr int64_t kQT = 32;  // query rows a block

// A key-sum's longest chain over the most keys a row sees (`span`): one add a key, a rescale a
// tile (the span may straddle one tile more than span / kTile), the product's rounding.
double key_depth(int64_t span) { return double(span + span / kTile + 3); }

template <class O>
void prompt(const kc::Buffers& b, Cache cache, int64_t page, bool p_bf16) {
  using namespace kc::attention_cpu;
  const kc::attention::Geometry g = kc::attention::geometry(cache, b.shape(), page);
  const kc::bf16 *q = b.in<kc::bf16>("q"), *k = b.in<kc::bf16>("k"), *v = b.in<kc::bf16>("v");
  const int32_t *lens = b.in<int32_t>("lens"), *pos = b.in<int32_t>("pos");
  const int32_t* table = cache == Cache::paged ? b.in<int32_t>("page_table") : nullptr;
  O* out = b.out<O>("out");
  float* lse = b.out<float>("lse");
  const int64_t d = g.d, qtiles = (g.rows + kQT - 1) / kQT;
  kc::parallel_for(g.seqs * g.q_heads * qtiles, [&](int64_t i0, int64_t i1) {
    std::vector<float> qf(size_t(kQT * d)), kf(size_t(kTile * d)), vf(size_t(kTile * d)), s(size_t(kTile), 0.f);
    std::vector<Row> st;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t sq = i / (g.q_heads * qtiles), h = (i / qtiles) % g.q_heads, r0 = (i % qtiles) * kQT;
      const int64_t nr = std::min(kQT, g.rows - r0), kh = h / g.group, len = lens[sq];
      // Each row's span and the block's union [blo, bend): the rows' windows overlap or abut (one
      // position apart), so the union holds no tile that no row sees.
      int64_t lo[kQT], end[kQT], blo = INT64_MAX, bend = 0;
      st.assign(size_t(nr), Row(d));
      for (int64_t r = 0; r < nr; ++r) {
        std::tie(lo[r], end[r]) = span(len, pos[sq * g.rows + r0 + r], g.window);
        if (end[r] > lo[r]) blo = std::min(blo, lo[r]), bend = std::max(bend, end[r]);
        const int64_t at = ((sq * g.rows + r0 + r) * g.q_heads + h) * d;
        for (int64_t t = 0; t < d; ++t) qf[size_t(r * d + t)] = load(q, at + t);
      }
      for (int64_t t0 = bend > blo ? blo / kTile * kTile : bend; t0 < bend; t0 += kTile) {
        const int64_t ka = std::max(blo, t0), kb = std::min(bend, t0 + kTile);
        for (int64_t j = ka; j < kb; ++j) {  // only keys some row sees: no slot past the cache
          const int64_t off = kv_at(g, table, sq, j, kh, {}, len);
          for (int64_t t = 0; t < d; ++t)
            kf[size_t((j - t0) * d + t)] = load(k, off + t), vf[size_t((j - t0) * d + t)] = load(v, off + t);
        }
        for (int64_t r = 0; r < nr; ++r) {
          const int64_t a = std::max(lo[r], t0), e = std::min(end[r], t0 + kTile);
          if (a >= e) continue;  // a row whose causal edge is before this tile, or whose window is after it
          Row& w = st[size_t(r)];
          const float* qr = &qf[size_t(r * d)];
          float tmax = -INFINITY;
          bool nan = false;
          for (int64_t j = a; j < e; ++j) {
            const float* kr = &kf[size_t((j - t0) * d)];
            float dot = 0;
            for (int64_t t = 0; t < d; ++t) dot += qr[t] * kr[t];
            const float x = s[size_t(j - t0)] = dot * g.scale;
            if (std::isnan(x)) nan = true;
            else tmax = std::max(tmax, x);
          }
          const float mnew = nan || std::isnan(w.m) ? NAN : std::max(w.m, tmax);
          const float c = mnew == -INFINITY ? 0.f : mnew;  // nothing to overflow: shift by 0
          if (!(mnew == w.m)) {
            const float alpha = std::exp(w.m - c);
            w.l *= alpha;
            for (auto& x : w.acc) x *= alpha;
            w.m = mnew;
          }
          for (int64_t j = a; j < e; ++j) {
            const float p = std::exp(s[size_t(j - t0)] - c);
            w.l += p;
            const float pv = p_bf16 ? kc::from_bf16(kc::to_bf16(p)) : p;
            const float* vr = &vf[size_t((j - t0) * d)];
            for (int64_t t = 0; t < d; ++t) w.acc[size_t(t)] += pv * vr[t];
          }
        }
      }
      for (int64_t r = 0; r < nr; ++r) {
        const int64_t at = (sq * g.rows + r0 + r) * g.q_heads + h;
        finish(st[size_t(r)], d, false, false, out + at * d, lse + at);
      }
    }
  });
}

}  // namespace

// Causal prefill over a linear cache, GQA 2, bf16 out: seq 0's rows = keys is a whole prompt; the
// served rows < keys a prompt after a cached prefix. Sizes keep the float64 references quick.
KC_KERNEL("attention/prompt/linear_bf16", cpu) {
  return kc::attention::prompt(Cache::linear, kc::DType::bf16)
      .served({{"seqs", {3}}, {"rows", {64, 96}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {96, 144}}})
      .tile("keys", kTile, 1, 1)
      .tile("rows", kQT, 1, 1)
      .range("d", 64, 64)  // head dims of 64, 128, ...
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(s["keys"]); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { prompt<kc::bf16>(b, Cache::linear, 0, false); });
}

// A sliding window of 80 keys (more than a tile: tiles left of every row's window skipped), no
// GQA over 2 kv heads, bf16 out.
KC_KERNEL("attention/prompt/window_bf16", cpu) {
  return kc::attention::prompt(Cache::linear, kc::DType::bf16)
      .served({{"seqs", {3}}, {"rows", {80}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {64}}, {"window", {80}},
               {"keys", {80, 192}}})
      .tile("keys", kTile, 1, 1)
      .tile("rows", kQT, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(std::min(s["keys"], s["window"])); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { prompt<kc::bf16>(b, Cache::linear, 0, false); });
}

// The paged-KV form for cached prefixes: 40 new rows after a prefix of up to 160 keys in pages of
// 16 shuffled over an arena, no GQA, P rounded to bf16 for P.V (l sums the fp32 P), bf16 out.
KC_KERNEL("attention/prompt/paged_bf16", cpu) {
  kc::attention::Steps st;
  st.p = kc::attention::PRound::bf16;
  return kc::attention::prompt(Cache::paged, kc::DType::bf16, st, 16)
      .served({{"seqs", {3}}, {"rows", {40}}, {"kv_heads", {2}}, {"group", {1}}, {"d", {64}}, {"keys", {96, 200}}})
      .tile("keys", kTile, 1, 1)
      .tile("rows", kQT, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return key_depth(s["keys"]); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { prompt<kc::bf16>(b, Cache::paged, 16, true); });
}
