// The attention family's gate 1 on host cases: a non-finite value at a key no row may see (past the
// causal edge, outside the window, in a page's padding or a spare page) is planted (the inputs hold
// it) and changes no reference value; one at a visible key reaches only the rows that see it; the
// whole-row plants get float64's class or the stated rule's 0 and -Inf; the rule check catches both
// ways of breaking it; gate 4's fill makes every score equal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kc/families/attention.hpp"
#include "kc/numeric.hpp"

namespace {
using kc::attention::Cache;

kc::Entry entry(Cache cache, kc::attention::Empty rule = kc::attention::Empty::propagate) {
  kc::attention::Steps st;
  st.empty = rule;
  std::vector<std::pair<std::string, std::vector<int64_t>>> served{
      {"seqs", {3}}, {"rows", {3}}, {"kv_heads", {2}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 70}}};
  if (cache == Cache::ring) served.push_back({"window", {20}});
  return kc::attention::decode(cache, kc::DType::f32, st, 16)
      .served(std::move(served))
      .tile("keys", 64, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["keys"] + 4); }, 1);
}

kc::Shape shape(Cache cache, int64_t keys) {
  kc::Shape s{{"seqs", 3}, {"rows", 3}, {"kv_heads", 2}, {"group", 2}, {"d", 64}, {"keys", keys}};
  if (cache == Cache::ring) s.set("window", 20);
  return s;
}

kc::Case prepared(const kc::Entry& e, const kc::Shape& s, kc::Fill f) {
  kc::Case c(s, f, 7);
  c.spec = &e.spec;
  e.rig.prepare(c);
  return c;
}

kc::Fill plant(int p) { return kc::Fill{kc::FillKind::nonfinite, p, -1}; }

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Elements of the named input that differ from `base`, and whether one of them is not finite.
std::pair<size_t, bool> planted(const kc::Case& c, const kc::Case& base, const char* name) {
  const kc::HostBuffer &a = c.buffer(name), &b = base.buffer(name);
  size_t n = 0;
  bool nonfinite = false;
  for (size_t i = 0; i < a.decl.count; ++i) {
    const double x = kc::load_as_double(a.bytes.data(), a.decl.type, i), y = kc::load_as_double(b.bytes.data(), b.decl.type, i);
    if (!same(x, y)) ++n, nonfinite |= !std::isfinite(x);
  }
  return {n, nonfinite};
}

int index_of(const kc::Entry& e, const std::string& name) {
  for (size_t i = 0; i < e.rig.plants.size(); ++i)
    if (e.rig.plants[i] == name) return int(i);
  ADD_FAILURE() << "no plant '" << name << "'";
  return 0;
}

bool masked(const std::string& name) {
  for (const char* w : {"past the causal edge", "outside the window", "padding", "spare page"})
    if (name.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(AttentionPlants, AMaskedKeysValueIsPlantedAndChangesNothing) {
  for (Cache cache : {Cache::linear, Cache::ring, Cache::paged})
    for (int64_t keys : {int64_t(1), int64_t(37), int64_t(64), int64_t(70)}) {
      const kc::Entry e = entry(cache);
      const kc::Shape s = shape(cache, keys);
      const kc::Case base = prepared(e, s, kc::Fill{});
      const auto want = e.rig.reference(base);
      int seen = 0;
      for (size_t p = 0; p < e.rig.plants.size(); ++p) {
        if (!masked(e.rig.plants[p])) continue;
        ++seen;
        const kc::Case c = prepared(e, s, plant(int(p)));
        const auto [nk, fk] = planted(c, base, "k");
        const auto [nv, fv] = planted(c, base, "v");
        EXPECT_TRUE((nk || nv) && (fk || fv)) << e.rig.plants[p] << " planted nothing non-finite at keys " << keys;
        const auto got = e.rig.reference(c);
        for (size_t x = 0; x < got.size(); ++x)
          for (size_t i = 0; i < got[x].want.size(); ++i)
            ASSERT_TRUE(same(got[x].want[i], want[x].want[i]))
                << e.rig.plants[p] << " reached " << got[x].name << "[" << i << "] at " << s.str();
      }
      EXPECT_GE(seen, cache == Cache::paged ? 7 : 5);
    }
}

TEST(AttentionPlants, AVisibleKeysNaNReachesOnlyTheRowsThatSeeIt) {
  const kc::Entry e = entry(Cache::linear);
  const kc::Shape s = shape(Cache::linear, 70);
  const kc::Case base = prepared(e, s, kc::Fill{});
  const kc::Case c = prepared(e, s, plant(index_of(e, "NaN in v (the row's last visible key)")));
  const auto want = e.rig.reference(base), got = e.rig.reference(c);
  const int64_t rows = 3, heads = 4, d = 64;
  // Sequence 0's last key is seen by its last row alone (q heads 0 and 1 read kv head 0), at d - 1.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < d; ++t) {
        const size_t i = size_t(((r * heads) + h) * d + t);
        if (r == rows - 1 && h < 2 && t == d - 1) EXPECT_TRUE(std::isnan(got[0].want[i])) << r << " " << h;
        else EXPECT_TRUE(same(got[0].want[i], want[0].want[i])) << r << " " << h << " " << t;
      }
}

TEST(AttentionPlants, WholeRowsGetFloat64sClassOrTheRule) {
  for (auto rule : {kc::attention::Empty::propagate, kc::attention::Empty::zero}) {
    const bool zero = rule == kc::attention::Empty::zero;
    const kc::Entry e = entry(Cache::paged, rule);
    const kc::Shape s = shape(Cache::paged, 37);
    const int64_t rows = 3, heads = 4, d = 64;
    auto check = [&](const char* name, int64_t r, int64_t h, bool empty) {
      const auto got = e.rig.reference(prepared(e, s, plant(index_of(e, name))));
      const size_t row = size_t(r * heads + h);
      for (int64_t t = 0; t < d; ++t) {
        const double o = got[0].want[row * size_t(d) + size_t(t)];
        if (empty) EXPECT_TRUE(zero ? o == 0 : std::isnan(o)) << name << " " << o;
        else EXPECT_TRUE(std::isfinite(o)) << name;
      }
      EXPECT_EQ(got[1].want[row] == -INFINITY, empty) << name << " lse " << got[1].want[row];
    };
    check("every visible score -Inf", rows - 1, 0, true);
    check("every visible score -Inf but the last key's", rows - 1, 0, false);
    for (int64_t r = 0; r < rows; ++r) check("a sequence with no key", r, 1, true);
    // With 3 sequences the last holds no key at every fill.
    const auto plain = e.rig.reference(prepared(e, s, kc::Fill{}));
    EXPECT_EQ(plain[1].want[size_t((2 * rows + 1) * heads)], -INFINITY);
  }
}

TEST(AttentionPlants, TheStatedRuleIsCheckedAsStated) {
  const kc::Entry e = entry(Cache::linear, kc::attention::Empty::zero);
  ASSERT_TRUE(bool(e.rig.rule));
  kc::Case c = prepared(e, shape(Cache::linear, 37), plant(index_of(e, "every visible score -Inf")));
  const auto want = e.rig.reference(c);
  auto put = [&](const char* name, size_t i, double v) {
    kc::HostBuffer& b = const_cast<kc::HostBuffer&>(c.buffer(name));
    kc::store_from_double(b.bytes.data(), b.decl.type, i, v);
  };
  for (const auto& x : want)
    for (size_t i = 0; i < x.want.size(); ++i) put(x.name.c_str(), i, x.want[i]);
  EXPECT_EQ(e.rig.rule(c), "");
  const size_t masked_row = size_t(2 * 4);  // sequence 0's last row, q head 0
  put("out", masked_row * 64, NAN);         // float64's class there, but the rule says 0
  EXPECT_NE(e.rig.rule(c), "");
  put("out", masked_row * 64, 0);
  EXPECT_EQ(e.rig.rule(c), "");
  put("out", 0, 0);  // a finite output is held to its class alone; a class broken elsewhere is caught
  put("lse", 1, NAN);
  EXPECT_NE(e.rig.rule(c), "");
}

TEST(AttentionPlants, GateFoursFillMakesEveryScoreEqual) {
  const kc::Entry e = entry(Cache::paged);
  const kc::Case c = prepared(e, shape(Cache::paged, 70), kc::Fill{kc::FillKind::sums});
  const auto got = e.rig.reference(c);
  // Every visible score is scale * 1, every p 1: lse = scale + log(count) exactly.
  const double sc = kc::attention::scale(c.shape());
  const auto lens = c.get<int32_t>("lens");
  const auto pos = c.get<int32_t>("pos");
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t r = 0; r < 3; ++r) {
      const int64_t p = pos[size_t(s * 3 + r)], n = std::max<int64_t>(0, std::min<int64_t>(p + 1, lens[size_t(s)]));
      for (int64_t h = 0; h < 4; ++h) {
        const double lse = got[1].want[size_t((s * 3 + r) * 4 + h)];
        if (n == 0) EXPECT_EQ(lse, -INFINITY);
        else EXPECT_NEAR(lse, sc + std::log(double(n)), 1e-12) << s << " " << r << " " << h;
      }
    }
}

// prompt()'s plants at the key tile's edges (tile 64): +Inf in v at key 64 m - 1, 64 m or 64 m + 1
// just past a row's causal edge or just before a row's window; reaching only the rows that see it
// (every other output as without it). The fully masked first row tile: lse -Inf in its 32 rows.
TEST(AttentionPlants, PromptPlantsAtTheKeyTilesEdges) {
  const kc::Entry e = kc::attention::prompt(Cache::linear, kc::DType::f32)
                          .served({{"seqs", {3}}, {"rows", {80}}, {"kv_heads", {1}}, {"group", {1}}, {"d", {64}},
                                   {"window", {80}}, {"keys", {80, 192}}})
                          .tile("keys", 64, 1, 1)
                          .tile("rows", 32, 1, 1)
                          .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["keys"] + 4); }, 1);
  const kc::Shape s{{"seqs", 3}, {"rows", 80}, {"kv_heads", 1}, {"group", 1}, {"d", 64}, {"window", 80}, {"keys", 192}};
  const kc::Case base = prepared(e, s, kc::Fill{});
  const auto want = e.rig.reference(base);
  const int64_t slots = 192 + 8, d = 64;
  for (const char* where : {" just past a row's causal edge at key ", " just before a row's window at key "})
    for (auto [off, text] : {std::pair{63, "tile - 1"}, std::pair{0, "tile"}, std::pair{1, "tile + 1"}}) {
      const std::string name = std::string("+Inf in v") + where + text + " (a multiple of the key tile; else where the plain plant goes)";
      const kc::Case c = prepared(e, s, plant(index_of(e, name)));
      const kc::HostBuffer& v = c.buffer("v");
      int64_t key = -1;
      for (size_t i = 0; i < v.decl.count; ++i)
        if (std::isinf(kc::load_as_double(v.bytes.data(), v.decl.type, i))) key = int64_t(i / size_t(d)) % slots;
      ASSERT_GE(key, 0) << name;
      EXPECT_EQ(key % 64, off) << name;
      // Sequence 0's row r sits at 112 + r and sees [max(0, 32 + r), 113 + r): rows not seeing the
      // key keep float64's values.
      const auto got = e.rig.reference(c);
      int reached = 0;
      for (int64_t r = 0; r < 80; ++r) {
        const bool sees = key <= 112 + r && key >= 33 + r;
        reached += sees;
        for (int64_t t = 0; t < d; ++t)
          if (!sees) ASSERT_TRUE(same(got[0].want[size_t(r * d + t)], want[0].want[size_t(r * d + t)])) << name << " row " << r;
      }
      EXPECT_GT(reached, 0) << name;
    }
  const kc::Case c = prepared(e, s, plant(index_of(e, "every visible score -Inf in sequence 0's first row tile (q head 0)")));
  const auto got = e.rig.reference(c);
  for (int64_t r = 0; r < 80; ++r) EXPECT_EQ(got[1].want[size_t(r)] == -INFINITY, r < 32) << r;
}
