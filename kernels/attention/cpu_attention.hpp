// What the attention family's CPU kernels share: one row's online softmax in fp32 over keys in
// tiles of kTile (aligned at multiples of kTile), the row's finish (out = acc / l, lse), the
// caches' addressing, and the decode launch, with the planted faults the controls switch on.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kc/families/attention.hpp"
#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/rig.hpp"

namespace kc::attention_cpu {

inline constexpr int64_t kTile = 64;

// A row's running state: max, sum of p, unnormalized P.V.
struct Row {
  float m = -INFINITY, l = 0;
  std::vector<float> acc;
  explicit Row(int64_t d) : acc(size_t(d), 0.f) {}
};

// Planted faults (controls); all off in the served kernels.
struct Faults {
  bool keep_l = false;        // l is never rescaled when the max moves
  bool masked_tiles = false;  // P.V over whole tiles of slots, p = 0 at keys the row may not see
  int past_edge = 0;          // keys seen past the row's causal edge
  int past_window = 0;        // keys seen before the row's window
  bool window_tile_edge = false;  // a window starting at a tile's start also visits the key before it, p = 0
  bool stale_page = false;    // a sequence's last page read through the table entry before it
  bool swap_tables = false;   // sequences 0 and 1 read each other's page table
  bool p_tf32 = false;        // P.V reads P as a tf32 mma does (tf32_cut): a fault unless PRound::tf32 is stated
};

// An fp32 value as a tf32 mma operand: 10 fraction bits, the other 13 cut toward zero (tools/tc-probe,
// mma.m16n8k8.tf32 on the H200). A quiet NaN stays NaN; P is never a signalling one.
inline float tf32_cut(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u &= 0xffffe000u;
  std::memcpy(&x, &u, 4);
  return x;
}

inline float load(const bf16* p, int64_t i) { return from_bf16(p[i]); }
inline void store(float* p, int64_t i, float v) { p[i] = v; }
inline void store(bf16* p, int64_t i, float v) { p[i] = to_bf16(v); }

// Keys [lo, end) into the row's state. key(j) gives key j's k and v rows (bf16, d values), or null
// where masked_tiles visits a slot past the cache. sc: the scale (times log2(e) where base2: scores
// in log2 units, exp2). A max of -Inf shifts by 0 (nothing to overflow); a NaN score makes the row NaN.
template <class Key>
void online(Row& st, const float* q, int64_t d, float sc, int64_t lo, int64_t end, Key key, bool p_bf16, bool base2,
            const Faults& f = {}) {
  float s[kTile];
  const auto ex = [base2](float x) { return base2 ? std::exp2(x) : std::exp(x); };
  const int64_t from = f.window_tile_edge && lo > 0 && lo % kTile == 0 ? lo - 1 : lo;  // the fault's first key
  for (int64_t t0 = from / kTile * kTile; t0 < end; t0 += kTile) {
    // The tile's keys: [a, b), or every slot of the tile where masked_tiles.
    const int64_t a = f.masked_tiles ? t0 : std::max(from, t0), b = f.masked_tiles ? t0 + kTile : std::min(end, t0 + kTile);
    float tmax = -INFINITY;
    bool nan = false;
    for (int64_t j = a; j < b; ++j) {
      const bf16* k = key(j).first;
      if (!k || j < lo || j >= end) {
        s[j - a] = -INFINITY;  // masked
        continue;
      }
      float dot = 0;
      for (int64_t t = 0; t < d; ++t) dot += q[t] * load(k, t);
      s[j - a] = dot * sc;
      if (std::isnan(s[j - a])) nan = true;
      else tmax = std::max(tmax, s[j - a]);
    }
    const float mnew = nan || std::isnan(st.m) ? NAN : std::max(st.m, tmax);
    const float c = mnew == -INFINITY ? 0.f : mnew;
    if (!(mnew == st.m)) {  // the max moved (or is NaN): rescale the running sums
      const float alpha = ex(st.m - c);
      if (!f.keep_l) st.l *= alpha;
      for (auto& x : st.acc) x *= alpha;
      st.m = mnew;
    }
    for (int64_t j = a; j < b; ++j) {
      const auto [k, v] = key(j);
      if (!k) continue;
      const float p = (j < lo || j >= end) ? 0.f : ex(s[j - a] - c);
      st.l += p;
      const float pv = p_bf16 ? from_bf16(to_bf16(p)) : f.p_tf32 ? tf32_cut(p) : p;
      for (int64_t t = 0; t < d; ++t) st.acc[size_t(t)] += pv * load(v, t);
    }
  }
}

// out = acc / l and lse = c + log l (log2 where base2); the stated rule writes 0 and -Inf for a row
// of no weight (no key, or every score -Inf).
template <class O>
void finish(const Row& st, int64_t d, bool zero_rule, bool base2, O* out, float* lse) {
  const bool none = zero_rule && st.l == 0;
  for (int64_t t = 0; t < d; ++t) store(out, t, none ? 0.f : st.acc[size_t(t)] / st.l);
  const float c = st.m == -INFINITY ? 0.f : st.m;
  *lse = none ? -INFINITY : c + (base2 ? std::log2(st.l) : std::log(st.l));
}

// A row's visible keys [lo, end): 0 <= j <= pos, j > pos - window, j < len (attention.hpp).
inline std::pair<int64_t, int64_t> span(int64_t len, int64_t pos, int64_t window) {
  if (pos < 0 || len <= 0) return {0, 0};
  return {window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0, std::min(pos + 1, len)};
}

// Element offset of key j of sequence s, kv head h (attention.hpp's layouts), or -1 past the cache.
inline int64_t kv_at(const attention::Geometry& g, const int32_t* table, int64_t s, int64_t j, int64_t h, const Faults& f,
                     int64_t len) {
  using attention::Cache;
  if (g.cache == Cache::paged) {
    int64_t row = s, p = j / g.slots;
    if (f.swap_tables && g.seqs >= 2 && s < 2) row = 1 - s;
    if (f.stale_page && p >= 1 && p == (len - 1) / g.slots) --p;
    return ((table[row * g.max_pages + p] * g.slots + j % g.slots) * g.kv_heads + h) * g.d;
  }
  const int64_t slot = g.cache == Cache::ring ? j % g.slots : j;
  if (slot >= g.slots) return -1;
  return ((s * g.slots + slot) * g.kv_heads + h) * g.d;
}

// The decode launch: every (sequence, row, q head) on every core.
template <class O>
void decode(const Buffers& b, attention::Cache cache, int64_t page, bool p_bf16, bool zero_rule, bool base2,
            const Faults& f = {}) {
  const attention::Geometry g = attention::geometry(cache, b.shape(), page);
  const bf16 *q = b.in<bf16>("q"), *k = b.in<bf16>("k"), *v = b.in<bf16>("v");
  const int32_t *lens = b.in<int32_t>("lens"), *pos = b.in<int32_t>("pos");
  const int32_t* table = cache == attention::Cache::paged ? b.in<int32_t>("page_table") : nullptr;
  O* out = b.out<O>("out");
  float* lse = b.out<float>("lse");
  const float sc = base2 ? float(g.scale * M_LOG2E) : g.scale;
  parallel_for(g.seqs * g.rows * g.q_heads, [&](int64_t i0, int64_t i1) {
    std::vector<float> qf(size_t(g.d));
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t s = i / (g.rows * g.q_heads), r = (i / g.q_heads) % g.rows, h = (i % g.q_heads) / g.group;
      const int64_t len = lens[s];
      auto [lo, end] = span(len, pos[s * g.rows + r], g.window);
      if (end > lo) end += f.past_edge, lo = std::max<int64_t>(0, lo - f.past_window);
      for (int64_t t = 0; t < g.d; ++t) qf[size_t(t)] = load(q, i * g.d + t);
      auto key = [&](int64_t j) -> std::pair<const bf16*, const bf16*> {
        const int64_t off = kv_at(g, table, s, j, h, f, len);
        if (off < 0) return {nullptr, nullptr};
        return {k + off, v + off};
      };
      Row st(g.d);
      online(st, qf.data(), g.d, sc, lo, end, key, p_bf16, base2, f);
      finish(st, g.d, zero_rule, base2, out + i * g.d, lse + i);
    }
  });
}

}  // namespace kc::attention_cpu
