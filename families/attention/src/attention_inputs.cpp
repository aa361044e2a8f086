// The decode and split inputs for every gate's fill, and gate 1's plants (attention.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attention_common.hpp"

namespace kc::attention::detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
using plants::At;
using plants::Kind;

// Where a plant goes: plants::standard's at a visible key (k, v) or in q, or the family's own.
enum class Where : uint8_t {
  at_key, past_end, outside_window, padding, spare, all_ninf, all_ninf_but_last, no_key,
  first_row, first_edge,  // prompt(): the first row that sees a key, the key just past its causal edge
  // prompt(): against the spec's key tile T, the key just past a row's causal edge and the key just
  // before a row's window at m T + off (off -1, 0, +1; m >= 1, the first a row reaches); a block of
  // fully masked rows, the first row tile of sequence 0 (every visible score -Inf).
  edge_tile, window_tile, masked_block
};
struct APlant {
  plants::Plant p;
  Where where;
  int off = 0;  // edge_tile, window_tile: the key's place against a tile's start
};

std::string name_of(const APlant& a) {
  const std::string x = plants::name(a.p);
  const char* at = a.p.at == At::first ? "first" : a.p.at == At::middle ? "middle" : "last";
  switch (a.where) {
    case Where::at_key: return a.p.operand == "q" ? x : x + " (the row's " + at + " visible key)";
    case Where::past_end: return x + " past the causal edge (the slot past the sequence's end)";
    case Where::outside_window: return x + " outside the window (past the end where none is)";
    case Where::padding: return x + " in a page's padding (a spare page where none is)";
    case Where::spare: return x + " in a spare page";
    case Where::all_ninf: return "every visible score -Inf";
    case Where::all_ninf_but_last: return "every visible score -Inf but the last key's";
    case Where::no_key: return "a sequence with no key";
    case Where::first_row: return x + " (sequence 0's first row that sees a key)";
    case Where::first_edge: return x + " just past the causal edge of sequence 0's first row that sees a key (the later rows see it)";
    case Where::edge_tile:
    case Where::window_tile: {
      const char* o = a.off < 0 ? "tile - 1" : a.off > 0 ? "tile + 1" : "tile";
      return x + (a.where == Where::edge_tile ? " just past a row's causal edge" : " just before a row's window") +
             " at key " + o + " (a multiple of the key tile; else where the plain plant goes)";
    }
    case Where::masked_block: return "every visible score -Inf in sequence 0's first row tile (q head 0)";
  }
  return x;
}

// The first kAtScale run at the largest shapes too (Rig::plants_at_scale): a NaN score, an infinite
// k and v at the row's last visible key, and an infinite v just past its causal edge; prompt's
// kPromptPlants follow them (at the smallest shapes the first row that sees a key is the last), the
// first row's four, then the key tile's seven.
constexpr int kAtScale = 4, kPromptPlants = 4 + 7;

std::vector<APlant> plant_list(bool paged, bool prompt) {
  std::vector<APlant> v{{{"q", Kind::nan, At::last}, Where::at_key},
                        {{"k", Kind::pinf, At::last}, Where::at_key},
                        {{"v", Kind::pinf, At::last}, Where::at_key},
                        {{"v", Kind::pinf, At::last}, Where::past_end}};
  for (auto& p : plants::standard({{"q", plants::kNoRows}, {"k", plants::kNoRows}, {"v", plants::kNoRows}}))
    if (std::none_of(v.begin(), v.begin() + kAtScale, [&](const APlant& a) {
          return a.where == Where::at_key && a.p.operand == p.operand && a.p.kind == p.kind && a.p.at == p.at;
        }))
      v.push_back({p, Where::at_key});
  auto masked = [&](Where w, std::vector<std::pair<const char*, Kind>> ks) {
    for (auto [op, k] : ks) v.push_back({{op, k, At::last}, w});
  };
  masked(Where::past_end, {{"k", Kind::pinf}, {"k", Kind::nan}, {"v", Kind::nan}});
  masked(Where::outside_window, {{"k", Kind::nan}, {"v", Kind::pinf}});
  if (paged) {
    masked(Where::padding, {{"k", Kind::nan}, {"v", Kind::pinf}});
    masked(Where::spare, {{"k", Kind::nan}, {"v", Kind::pinf}});
  }
  v.push_back({{"q", Kind::ninf, At::last}, Where::all_ninf});
  v.push_back({{"k", Kind::ninf, At::last}, Where::all_ninf_but_last});
  v.push_back({{"lens", Kind::nan, At::last}, Where::no_key});
  // prompt(): masked keys at a key tile's edge and a fully masked row tile, reached where a prefill's
  // rows are many (its largest shapes): at scale too, after the first query rows' plants.
  if (prompt) {
    std::vector<APlant> tiles;
    for (int off : {-1, 0, 1}) tiles.push_back({{"v", Kind::pinf, At::last}, Where::edge_tile, off});
    for (int off : {-1, 0, 1}) tiles.push_back({{"v", Kind::pinf, At::last}, Where::window_tile, off});
    tiles.push_back({{"q", Kind::ninf, At::last}, Where::masked_block});
    v.insert(v.begin() + kAtScale, tiles.begin(), tiles.end());
  }
  if (prompt)  // the first query rows, a block's causal edge far from the last row's: at scale too
    v.insert(v.begin() + kAtScale, {{{"q", Kind::nan, At::last}, Where::first_row},
                                    {{"v", Kind::pinf, At::last}, Where::first_edge},
                                    {{"k", Kind::nan, At::last}, Where::first_edge},
                                    {{"v", Kind::nan, At::last}, Where::first_edge}});
  return v;
}

const std::vector<APlant>& plants_for(bool paged, bool prompt) {
  static const std::vector<APlant> lists[4] = {plant_list(false, false), plant_list(true, false), plant_list(false, true),
                                               plant_list(true, true)};
  return lists[int(paged) + 2 * int(prompt)];
}

// The first page no sequence's table names (there are kSpare).
int64_t spare_page(const Geometry& g, std::span<const int32_t> table, std::span<const int32_t> lens) {
  std::vector<char> owned(size_t(g.pages), 0);
  for (int64_t s = 0; s < g.seqs; ++s)
    for (int64_t p = 0; p < page_count(g, lens[size_t(s)]); ++p) owned[size_t(table[size_t(s * g.max_pages + p)])] = 1;
  return std::find(owned.begin(), owned.end(), 0) - owned.begin();
}

struct Bufs {
  Buf q, k, v;
  std::span<int32_t> lens, pos, table;
  std::vector<int32_t> tab() const { return {table.begin(), table.end()}; }
};

// Spread values; then k[., 0] ramps up along each sequence to a jump at its newest key, against
// q[., 0] = +4 (even q heads: the max moves late) or -4 (odd: it stays early).
void fill_random(Case& c, const Geometry& g, Bufs& b) {
  Rng rq = rng_for(c, "q"), rk = rng_for(c, "k"), rv = rng_for(c, "v");
  fill_spread(b.q, rq, -2, 0);
  fill_spread(b.v, rv, -2, 1);
  if (c.fill().dist == fills::kOffset) {  // keys near 1000: scores far from 0, of small spread
    const uint64_t seed = fills::seed_for(c.seed(), "k", fills::kOffset);
    std::vector<double> row(size_t(g.d));
    for (int64_t i = 0; i < int64_t(b.k.size()) / g.d; ++i) {
      fills::row(fills::kOffset, DType::bf16, seed, i, row);
      for (int64_t t = 0; t < g.d; ++t) b.k.set_exact(size_t(i * g.d + t), row[size_t(t)]);
    }
    return;
  }
  fill_spread(b.k, rk, -2, 0);
  for (int64_t i = 0; i < int64_t(b.q.size()) / g.d; ++i) b.q.set(size_t(i * g.d), (i % g.q_heads) % 2 ? -4 : 4);
  const double root = std::sqrt(double(g.d));
  const auto tab = b.tab();
  for (int64_t s = 0; s < g.seqs; ++s) {
    const int64_t len = b.lens[size_t(s)];
    const int64_t first = g.cache == Cache::ring ? std::max<int64_t>(0, len - g.slots) : 0;
    for (int64_t j = first; j < len; ++j)
      for (int64_t h = 0; h < g.kv_heads; ++h)
        b.k.set(size_t(kv_offset(g, tab, s, j, h)), j == len - 1 ? 2 * root : 0.5 * root * double(j + 1) / double(len));
  }
}

// Gate 4: mirrored integer q (q[d-1-t] = -q[t] but q[0] = a, q[d-1] = 1 - a, one product 2^16)
// against symmetric integer k (k[0] = k[d-1] = 1): every q . k is exactly 1. v over each
// sequence's resident keys: blocks::mirrored_row's integers (sums exact, fp16 overflowing).
void fill_sums(Case& c, const Geometry& g, Bufs& b) {
  const int64_t d = g.d, h = d / 2;
  Rng rq = rng_for(c, "q"), rk = rng_for(c, "k"), rv = rng_for(c, "v");
  for (int64_t i = 0; i < int64_t(b.q.size()) / d; ++i) {
    const size_t o = size_t(i * d);
    const double a = double(rq.range(2, 16));
    for (int64_t t = 0; t < d; ++t) b.q.set_exact(o + t, 0);
    for (int64_t t = 1; t < h; ++t) {
      const double x = t == 1 ? 256 : double(rq.range(64, 127)) * (rq.coin() ? -1 : 1);
      b.q.set_exact(o + t, x);
      b.q.set_exact(o + d - 1 - t, -x);
    }
    b.q.set_exact(o, a);
    b.q.set_exact(o + d - 1, 1 - a);
  }
  for (int64_t i = 0; i < int64_t(b.k.size()) / d; ++i) {
    const size_t o = size_t(i * d);
    for (int64_t t = 0; t < d - t; ++t) {
      const double x = t == 0 ? 1 : t == 1 ? 256 : double(rk.range(1, 127));
      b.k.set_exact(o + t, x);
      b.k.set_exact(o + d - 1 - t, x);
    }
  }
  for (size_t i = 0; i < b.v.size(); ++i) b.v.set_exact(i, double(rv.range(-8, 8)));
  const auto tab = b.tab();
  for (int64_t s = 0; s < g.seqs; ++s) {
    const int64_t len = b.lens[size_t(s)];
    const int64_t first = g.cache == Cache::ring ? std::max<int64_t>(0, len - g.slots) : 0;
    for (int64_t kh = 0; kh < g.kv_heads; ++kh)
      for (int64_t t = 0; t < d && len > first; ++t) {
        const auto row = mirrored_row(rv, len - first, DType::bf16);
        for (int64_t j = first; j < len; ++j) b.v.set_exact(size_t(kv_offset(g, tab, s, j, kh) + t), row[size_t(j - first)]);
      }
  }
}

void apply_plant(Case& c, const Geometry& g, Bufs& b, bool prompt) {
  const auto& list = plants_for(g.cache == Cache::paged, prompt);
  const int idx = c.fill().plant;
  if (idx < 0 || idx >= int(list.size()))
    throw Error("attention family: plant " + std::to_string(idx) + " is not one of the " + std::to_string(list.size()) +
                " plants");
  const APlant& a = list[size_t(idx)];
  const int64_t d = g.d, r0 = g.rows - 1, len0 = b.lens[0];
  const Span sp = visible(g, len0, b.pos[size_t(r0)]);  // sequence 0's last row, q head 0
  const int64_t col = plants::column(a.p, c.fill(), d);
  const auto tab = b.tab();
  const size_t qoff = size_t(r0 * g.q_heads * d);
  const int64_t first = g.cache == Cache::ring ? std::max<int64_t>(0, len0 - g.slots) : 0;  // resident keys
  auto at = [&](int64_t j) { return size_t(kv_offset(g, tab, 0, j, 0)); };
  auto spare = [&] { return size_t(spare_page(g, b.table, b.lens) * g.slots * g.kv_heads * d); };
  // The slot past the sequence's end: linear's next slot, the ring's slot after the newest key (an
  // older key's, outside every window), a page's padding (a spare page where the last page is full).
  auto past_end = [&] { return g.cache != Cache::paged || len0 % g.slots ? at(len0) : spare(); };
  Buf& kv = a.p.operand == "v" ? b.v : b.k;
  auto put = [&](Buf& x, size_t base) { plants::write(x.data(), DType::bf16, base, d, a.p.kind, col); };
  switch (a.where) {
    case Where::at_key: {
      if (a.p.operand == "q") return put(b.q, qoff);
      const int64_t j = a.p.at == At::first ? sp.lo : a.p.at == At::middle ? sp.lo + sp.size() / 2 : sp.end - 1;
      return put(kv, at(j));
    }
    case Where::past_end: return put(kv, past_end());
    case Where::outside_window: {
      const int64_t j = len0 - g.rows - g.window;  // just before the first row's window
      return put(kv, g.window > 0 && j >= first ? at(j) : past_end());
    }
    case Where::padding: {
      if (len0 % g.slots == 0) return put(kv, spare());
      const int64_t page = tab[size_t((len0 - 1) / g.slots)];
      return put(kv, size_t(((page * g.slots + g.slots - 1) * g.kv_heads) * d));
    }
    case Where::spare: return put(kv, spare());
    case Where::all_ninf:  // q -Inf against every key's k > 0 at the column
      b.q.set(qoff + size_t(col), -kInf);
      for (int64_t j = first; j < len0; ++j) {
        const double x = std::fabs(b.k.get(at(j) + size_t(col)));
        b.k.set(at(j) + size_t(col), x == 0 ? 1 : x);
      }
      return;
    case Where::all_ninf_but_last: {  // q > 0 against k -Inf at every key but the newest
      const double x = std::fabs(b.q.get(qoff + size_t(col)));
      b.q.set(qoff + size_t(col), x == 0 ? 1 : x);
      for (int64_t j = first; j + 1 < len0; ++j) b.k.set(at(j) + size_t(col), -kInf);
      return;
    }
    case Where::no_key:
      b.lens[0] = 0;
      for (int64_t r = 0; r < g.rows; ++r) b.pos[size_t(r)] = int32_t(r - g.rows);
      return;
    case Where::edge_tile:
    case Where::window_tile: {
      // Key j = m T + off, m >= 1, past row r's edge (j = pos_r + 1 < len0: a later row sees it) or
      // before its window (j = pos_r - window, resident); the first m a row of sequence 0 reaches.
      const Dim* kd = c.spec ? c.spec->dim("keys") : nullptr;
      const int64_t T = kd && kd->tiled ? kd->tile : 0;
      const bool edge = a.where == Where::edge_tile;
      const int64_t jlo = edge ? std::max<int64_t>(1, len0 - g.rows + 1) : std::max(first, len0 - g.rows - g.window);
      const int64_t jhi = edge ? len0 - 1 : len0 - 1 - g.window;
      for (int64_t m = 1; T > 0 && (edge || g.window > 0) && m * T + a.off <= jhi; ++m)
        if (m * T + a.off >= jlo) return put(kv, at(m * T + a.off));
      return put(kv, past_end());
    }
    case Where::masked_block: {  // q -Inf at the column of the first row tile's rows, k > 0 there at every key
      const Dim* rd = c.spec ? c.spec->dim("rows") : nullptr;
      const int64_t n = std::min(g.rows, rd && rd->tiled ? rd->tile : g.rows);
      for (int64_t r = 0; r < n; ++r) b.q.set(size_t(r * g.q_heads * d + col), -kInf);
      for (int64_t j = first; j < len0; ++j) {
        const double x = std::fabs(b.k.get(at(j) + size_t(col)));
        b.k.set(at(j) + size_t(col), x == 0 ? 1 : x);
      }
      return;
    }
    case Where::first_row:
    case Where::first_edge: {  // row re, at pos len0 - rows + re = max(0, len0 - rows)
      const int64_t re = std::max<int64_t>(0, g.rows - len0);
      if (a.where == Where::first_row) return put(b.q, size_t(re * g.q_heads * d));
      const int64_t j = std::max<int64_t>(0, len0 - g.rows) + 1;
      return put(kv, j < len0 ? at(j) : past_end());
    }
  }
}

}  // namespace

void prepare_inputs(Case& c, const Geometry& g, bool prompt) {
  const bool paged = g.cache == Cache::paged;
  const size_t kv = size_t((paged ? g.pages * g.slots : g.seqs * g.slots) * g.kv_heads * g.d);
  Bufs b{Buf(c, "q", DType::bf16, size_t(g.seqs * g.rows * g.q_heads * g.d), Role::in),
         Buf(c, "k", DType::bf16, kv, Role::in),
         Buf(c, "v", DType::bf16, kv, Role::in),
         c.in<int32_t>("lens", size_t(g.seqs)),
         c.in<int32_t>("pos", size_t(g.seqs * g.rows)),
         {}};
  for (int64_t s = 0; s < g.seqs; ++s) {
    b.lens[size_t(s)] = int32_t(seq_len(g, s));
    for (int64_t r = 0; r < g.rows; ++r) b.pos[size_t(s * g.rows + r)] = int32_t(b.lens[size_t(s)] - g.rows + r);
  }
  if (paged) {  // pages shuffled over the arena; unused entries name a spare page
    b.table = c.in<int32_t>("page_table", size_t(g.seqs * g.max_pages));
    std::vector<int32_t> perm(size_t(g.pages));
    std::iota(perm.begin(), perm.end(), 0);
    Rng r = rng_for(c, "page_table");
    for (size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[size_t(r.range(0, int64_t(i)))]);
    size_t next = 0;
    for (int64_t s = 0; s < g.seqs; ++s)
      for (int64_t p = 0; p < page_count(g, b.lens[size_t(s)]); ++p) b.table[size_t(s * g.max_pages + p)] = perm[next++];
    for (int64_t s = 0; s < g.seqs; ++s)
      for (int64_t p = page_count(g, b.lens[size_t(s)]); p < g.max_pages; ++p)
        b.table[size_t(s * g.max_pages + p)] = perm[next + size_t(s + p) % size_t(kSpare)];
  }
  if (c.fill().kind == FillKind::sums) return fill_sums(c, g, b);
  fill_random(c, g, b);
  if (c.fill().kind == FillKind::nonfinite) apply_plant(c, g, b, prompt);
}

void set_plants(Rig& rig, Cache cache, bool prompt) {
  const auto& list = plants_for(cache == Cache::paged, prompt);
  rig.plants.clear();
  rig.plants_at_edges.clear();
  rig.plants_at_scale = prompt ? kAtScale + kPromptPlants : kAtScale;
  for (size_t i = 0; i < list.size(); ++i) {
    const APlant& a = list[i];
    rig.plants.push_back(name_of(a));
    const bool basic = a.where == Where::at_key && a.p.at == At::last &&
                       (a.p.kind == Kind::nan || a.p.kind == Kind::pinf || a.p.kind == Kind::ninf || a.p.kind == Kind::both);
    if (basic || a.where != Where::at_key) rig.plants_at_edges.push_back(int(i));
  }
}

}  // namespace kc::attention::detail
