// attention::append: new K and V rows into the paged arena, bit-exact (attention.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attention_common.hpp"

namespace kc::attention {
using namespace detail;

namespace {
// The append's sizes: decode's paged geometry (one q head a kv head: append has no queries).
Geometry append_geometry(const Shape& s, int64_t page) {
  Shape g = s;
  g.set("group", 1);
  return geometry(Cache::paged, g, page);
}
// The arena slot (element offset) new row r of sequence s, kv head h goes to; -1 where none.
int64_t target(const Geometry& g, const std::vector<int32_t>& lens, const std::vector<int32_t>& table, int64_t s,
               int64_t r, int64_t h) {
  const int64_t j = lens[size_t(s)] - g.rows + r;
  if (j < 0) return -1;
  return kv_offset(g, table, s, j, h);
}
const std::vector<Plant>& append_plants() {
  static const std::vector<Plant> p = plants::standard({{"k_new", plants::kNoRows}, {"v_new", plants::kNoRows}});
  return p;
}
}  // namespace

Entry append(int64_t page) {
  Entry e;
  plants::set(e.rig, append_plants());
  e.rig.prepare = [page](Case& c) {
    const Geometry g = append_geometry(c.shape(), page);
    const size_t rowsz = size_t(g.seqs * g.rows * g.kv_heads * g.d), arena = size_t(g.pages * g.slots * g.kv_heads * g.d);
    Buf kn(c, "k_new", DType::bf16, rowsz, Role::in), vn(c, "v_new", DType::bf16, rowsz, Role::in);
    const auto lens = c.in<int32_t>("lens", size_t(g.seqs));
    const auto table = c.in<int32_t>("page_table", size_t(g.seqs * g.max_pages));
    Buf k(c, "k", DType::bf16, arena, Role::in), v(c, "v", DType::bf16, arena, Role::in);
    Buf(c, "k_out", DType::bf16, arena, Role::out);
    Buf(c, "v_out", DType::bf16, arena, Role::out);
    Rng r = rng_for(c, "append");
    for (int64_t s = 0; s < g.seqs; ++s) lens[size_t(s)] = int32_t(seq_len(g, s));
    // Pages shuffled over the arena; entries past a sequence's pages name a spare page.
    std::vector<int32_t> perm(size_t(g.pages));
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[size_t(r.range(0, int64_t(i)))]);
    size_t next = 0;
    for (int64_t s = 0; s < g.seqs; ++s)
      for (int64_t p = 0; p < g.max_pages; ++p)
        table[size_t(s * g.max_pages + p)] = p < page_count(g, lens[size_t(s)]) ? perm[next++] : perm[size_t(g.pages - 1)];
    fill_spread(k, r, -3, 3), fill_spread(v, r, -3, 3);  // what the arena held: every slot must keep it
    fill_spread(kn, r, -3, 3), fill_spread(vn, r, -3, 3);
    // A plant goes into sequence 0's newest row, kv head 0.
    const Dims d{g.seqs * g.rows * g.kv_heads, g.d};
    const size_t at = size_t((g.rows - 1) * g.kv_heads * g.d);
    if (c.fill().kind != FillKind::nonfinite) return;
    const Plant& p = plants::at(append_plants(), c.fill().plant, "attention::append");
    Buf& b = p.operand == "k_new" ? kn : vn;
    plants::write(b.data(), DType::bf16, at, g.d, p.kind, plant_col(p, c.fill(), d));
  };
  e.rig.reference = [page](const Case& c) {
    const Geometry g = append_geometry(c.shape(), page);
    const auto kn = read(c, "k_new"), vn = read(c, "v_new");
    const auto lp = c.get<int32_t>("lens"), tp = c.get<int32_t>("page_table");
    const std::vector<int32_t> lens(lp.begin(), lp.end()), table(tp.begin(), tp.end());
    Expected ko, vo;
    ko.name = "k_out", vo.name = "v_out";
    ko.want = read(c, "k"), vo.want = read(c, "v");
    for (int64_t s = 0; s < g.seqs; ++s)
      for (int64_t r = 0; r < g.rows; ++r)
        for (int64_t h = 0; h < g.kv_heads; ++h) {
          const int64_t to = target(g, lens, table, s, r, h);
          if (to < 0) continue;
          const size_t from = size_t(((s * g.rows + r) * g.kv_heads + h) * g.d);
          std::copy_n(&kn[from], g.d, &ko.want[size_t(to)]);
          std::copy_n(&vn[from], g.d, &vo.want[size_t(to)]);
        }
    // A copy: every output is its value exactly (NaN's class where it is one).
    for (Expected* x : {&ko, &vo}) x->lo = x->want, x->hi = x->want;
    return results(ko, vo);
  };
  return std::move(e).in_place("k_out", "k").in_place("v_out", "v");
}

}  // namespace kc::attention
