// Bad specs get a clear error naming the entry and the field, never a crash.
#include <gtest/gtest.h>

#include <algorithm>

#include "kc/registry.hpp"
#include "toy.hpp"

using kc::Gate;
using kc::Why;

namespace {

std::string build_error(kc::Entry (*make)(), bool control = false) {
  kc::Registration r{"test/bad/entry", "cpu", "spec_test.cpp", 1, control, make};
  try {
    kc::build(r);
  } catch (const kc::Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_NAMES(msg, field)                                          \
  do {                                                                    \
    std::string m_ = (msg);                                               \
    EXPECT_NE(m_.find("test/bad/entry"), std::string::npos) << m_;        \
    EXPECT_NE(m_.find(field), std::string::npos) << m_;                   \
  } while (0)

kc::Entry env(kc::Entry e) { return std::move(e).served({{"rows", {1}}, {"cols", {64}}}).launch(toy::scale_kernel); }

}  // namespace

TEST(Spec, AGoodSpecBuilds) {
  EXPECT_EQ(build_error([] { return env(toy::scale()).tile("cols", 64, 8, 8); }), "");
}

TEST(Spec, EmptyEnvelope) {
  EXPECT_NAMES(build_error([] { return toy::scale().launch(toy::scale_kernel); }), "envelope is empty");
}

TEST(Spec, TileNotAMultipleOfItsStep) {
  EXPECT_NAMES(build_error([] { return env(toy::scale()).tile("cols", 60, 8, 8); }), "tile 60 is not a multiple of its step 8");
}

TEST(Spec, LeastAboveTheTile) {
  EXPECT_NAMES(build_error([] { return env(toy::scale()).tile("cols", 64, 8, 72); }), "least size 72 is above the tile 64");
}

TEST(Spec, ServedShapeOutsideTheEnvelope) {
  EXPECT_NAMES(build_error([] { return env(toy::scale()).tile("cols", 72, 24, 24); }),
               "served size 64 is outside the envelope");
  EXPECT_NAMES(build_error([] { return env(toy::scale()).range("rows", 2, 1); }), "dim 'rows'");
}

TEST(Spec, AControlThatNamesNoGate) {
  EXPECT_NAMES(build_error([] { return env(toy::scale()); }, /*control=*/true), "must name the gate it fails");
}

TEST(Spec, AKernelThatCallsControl) {
  EXPECT_NAMES(build_error([] { return env(toy::scale()).control(Gate::repeat, Why::bytes_differ); }), "KC_CONTROL");
}

TEST(Spec, MissingHooks) {
  EXPECT_NAMES(build_error([] { return toy::scale().served({{"rows", {1}}}); }), "no launch");
  EXPECT_NAMES(build_error([] { return env(toy::scale()).rule("NaN first", nullptr); }), "rule");
  EXPECT_NAMES(build_error([] { return env(toy::scale()).replaces("x/y", nullptr); }), "replaces");
  EXPECT_NAMES(build_error([] { return env(kc::Entry{}); }), "prepare");
}

TEST(Spec, BadNames) {
  kc::Registration r{"noslash", "cpu", "f", 1, false, [] { return env(toy::scale()); }};
  try {
    kc::build(r);
    FAIL() << "a name without a family was accepted";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("family/kernel"), std::string::npos) << e.what();
  }
}

TEST(Spec, DuplicateNamesAreReportedWithBothPlaces) {
  auto& r = kc::registry();
  size_t before = r.size();
  r.push_back({"test/dup/x", "cpu", "a.cpp", 3, false, nullptr});
  r.push_back({"test/dup/x", "cpu", "b.cpp", 9, false, nullptr});
  r.push_back({"test/dup/x", "cuda", "c.cu", 1, false, nullptr});  // another backend: fine
  auto d = kc::duplicate_names();
  r.resize(before);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("a.cpp:3"), std::string::npos) << d[0];
  EXPECT_NE(d[0].find("b.cpp:9"), std::string::npos) << d[0];
}

TEST(Spec, ShapesAtEveryTileEdge) {
  kc::Entry e = toy::scale().served({{"rows", {1, 4}}, {"cols", {64, 512}}}).tile("cols", 256, 8, 8);
  auto s = e.spec.gate3_shapes();
  std::vector<std::string> got;
  for (const auto& x : s) got.push_back(x.str());
  // Served; rows (no tile) at 1, 2, 3 and cols at its edges, with the others smallest; cols's edges
  // again at rows 2 (the second size); both corners are among them already.
  std::vector<std::string> want = {"rows:1/cols:64",  "rows:1/cols:512", "rows:4/cols:64",  "rows:4/cols:512",
                                   "rows:2/cols:64",  "rows:3/cols:64",  "rows:1/cols:8",   "rows:1/cols:248",
                                   "rows:1/cols:256", "rows:1/cols:264", "rows:2/cols:8",   "rows:2/cols:248",
                                   "rows:2/cols:256", "rows:2/cols:264", "rows:2/cols:512"};
  EXPECT_EQ(got, want);
}

namespace {
std::vector<std::string> strs(const std::vector<kc::Shape>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(s.str());
  return out;
}
bool has(const std::vector<kc::Shape>& v, const std::string& s) {
  const auto all = strs(v);
  return std::find(all.begin(), all.end(), s) != all.end();
}
kc::Entry grid(std::vector<int64_t> n_served) {
  return toy::scale().served({{"m", {4, 8}}, {"n", std::move(n_served)}, {"k", {16, 32}}}).tile("m", 4, 1, 1).tile("n", 64, 8, 8);
}
}  // namespace

TEST(Spec, CornersPutEveryTiledDimRaggedAtOnceAndAtItsLeast) {
  const auto s = grid({64, 128}).spec.gate3_shapes();
  EXPECT_TRUE(has(s, "m:5/n:72/k:16")) << "every tiled dim at tile + step, untiled ones smallest";
  EXPECT_TRUE(has(s, "m:1/n:8/k:16")) << "every tiled dim at its least";
  // n served below its tile: tile +- step are past the largest, so the corner takes n's least.
  EXPECT_TRUE(has(grid({16, 32}).spec.gate3_shapes(), "m:5/n:8/k:16"));
  for (const auto& x : s)
    for (const auto& d : grid({64, 128}).spec.dims) EXPECT_TRUE(grid({64, 128}).spec.valid(d, x[d.name])) << x.str();
}

TEST(Spec, EdgesRunAgainWithTheOtherDimsAtASecondSize) {
  kc::Entry e = toy::scale().served({{"rows", {1, 4}}, {"cols", {64, 512}}}).tile("cols", 256, 8, 8);
  EXPECT_EQ(e.spec.second(*e.spec.dim("rows")), 2);
  EXPECT_EQ(e.spec.second(*e.spec.dim("cols")), 64) << "a smallest served size of 2 or more is kept";
  EXPECT_TRUE(has(e.spec.gate3_shapes(), "rows:2/cols:264"));
  // A dim's next size from 2 up is least + step; one that cannot reach 2 stays where it is.
  kc::Entry stepped = toy::scale().served({{"rows", {1, 9}}, {"cols", {64}}}).range("rows", 1, 4);
  EXPECT_EQ(stepped.spec.second(*stepped.spec.dim("rows")), 5);
  kc::Entry one = toy::scale().served({{"rows", {1}}, {"cols", {64, 512}}}).tile("cols", 256, 8, 8);
  EXPECT_EQ(one.spec.second(*one.spec.dim("rows")), 1);
  for (const auto& x : one.spec.gate3_shapes()) EXPECT_EQ(x["rows"], 1) << x.str();
}

TEST(Spec, RangeAndUntiledDimsGetLeastLeastPlusStepAndLargestMinusStep) {
  kc::Entry e = toy::scale().served({{"m", {1, 3}}, {"n", {16, 40}}, {"k", {128, 512}}}).range("k", 64, 64);
  EXPECT_EQ(e.spec.edges(*e.spec.dim("k")), (std::vector<int64_t>{64, 128, 448}));
  EXPECT_EQ(e.spec.edges(*e.spec.dim("n")), (std::vector<int64_t>{1, 2, 39}));
  EXPECT_EQ(e.spec.edges(*e.spec.dim("m")), (std::vector<int64_t>{1, 2})) << "largest - step is least + step: once";
  const auto s = e.spec.gate3_shapes();
  for (const char* want : {"m:1/n:16/k:64", "m:1/n:16/k:448", "m:1/n:39/k:128", "m:2/n:16/k:448", "m:2/n:39/k:128"})
    EXPECT_TRUE(has(s, want)) << want;
  for (const auto& x : s)
    for (const auto& d : e.spec.dims) EXPECT_TRUE(e.spec.valid(d, x[d.name])) << x.str();
}

TEST(Spec, GateOneShapesAtEachTiledDimsLeastAndTileEdges) {
  EXPECT_EQ(strs(grid({64, 128}).spec.tile_edge_shapes()),
            (std::vector<std::string>{"m:1/n:64/k:16", "m:3/n:64/k:16", "m:5/n:64/k:16", "m:4/n:8/k:16",
                                      "m:4/n:56/k:16", "m:4/n:72/k:16"}));
}

TEST(Spec, SmallestRaggedShapeKeepsToWhatKeepTakes) {
  const kc::Spec spec = grid({64, 128}).spec;
  EXPECT_EQ(spec.smallest_ragged()->str(), "m:1/n:8/k:1") << "k, untiled, at its least";
  auto served = [&](const kc::Shape& s) { return spec.within_served(s); };
  EXPECT_EQ(spec.smallest_ragged(served)->str(), "m:5/n:72/k:16");
  // No dim that can be ragged (a tile of one step): none.
  kc::Entry flat = toy::scale().served({{"rows", {1, 4}}, {"cols", {64, 512}}}).tile("cols", 8, 8, 8);
  EXPECT_FALSE(flat.spec.smallest_ragged().has_value());
}

TEST(Spec, FormCandidatesHoldTileMultiplesAndTheirEdges) {
  kc::Entry e = toy::scale().served({{"rows", {1, 4}}, {"cols", {64, 512}}}).tile("cols", 64, 8, 8);
  std::vector<int64_t> cols;
  for (const auto& s : e.spec.form_candidates())
    if (s["rows"] == 1) cols.push_back(s["cols"]);
  // least 8; served 64, 512; 8, 24, 64 and 192 times 2^i with their +-8 edges, within 512.
  std::vector<int64_t> want = {8,   16,  24,  32,  40,  48,  56,  64,  72,  88,  96,  104, 120,
                               128, 136, 184, 192, 200, 248, 256, 264, 376, 384, 392, 504, 512};
  EXPECT_EQ(cols, want);
}

namespace {
kc::Entry two_forms() {
  return toy::scale()
      .served({{"rows", {1, 4}}, {"cols", {64, 512}}})
      .tile("cols", 64, 8, 8)
      .launches({"f/small", "f/big", "f/never", "f/beside"});
}
const std::vector<std::string> kForms = {"f/small", "f/big", "f/never"};  // f/beside runs with each
std::string big_past(const kc::Shape& s, int64_t at) { return s["cols"] > at ? "f/big" : "f/small"; }
}  // namespace

TEST(Spec, FormShapesAddARaggedShapeForAFormTheFixedShapesRunWhole) {
  kc::Entry e = two_forms();
  auto pick = [](const kc::Shape& s) { return big_past(s, 256); };
  e.spec.forms = kForms;
  kc::FormShapes f = kc::form_shapes(e.spec, pick, e.spec.gate3_shapes());
  // f/big is reached by the fixed shapes only at 512 (whole); f/small runs ragged at 8, 56 and 72.
  ASSERT_EQ(f.added.size(), 1u);
  EXPECT_EQ(f.added[0].first.str(), "rows:1/cols:264");
  EXPECT_EQ(f.added[0].second, "f/big");
  EXPECT_EQ(f.unreached, std::vector<std::string>{"f/never"});
}

TEST(Spec, FormShapesAddNothingWhereEveryFormAlreadyRunsRagged) {
  kc::Entry e = two_forms();
  auto pick = [](const kc::Shape& s) { return s["cols"] > 60 ? "f/big" : "f/small"; };  // 72 is big and ragged
  e.spec.forms = kForms;
  kc::FormShapes f = kc::form_shapes(e.spec, pick, e.spec.gate3_shapes());
  EXPECT_TRUE(f.added.empty()) << f.added[0].first.str();
}

TEST(Spec, FormShapesReachAFormNoFixedShapeTakes) {
  kc::Entry e = two_forms();
  // f/big only at 4 rows and past 300 columns: no fixed shape (4 rows x 64, 4 x 512 is whole) is ragged there.
  auto pick = [](const kc::Shape& s) { return s["rows"] == 4 && s["cols"] > 300 ? "f/big" : "f/small"; };
  e.spec.forms = kForms;
  kc::FormShapes f = kc::form_shapes(e.spec, pick, e.spec.gate3_shapes());
  ASSERT_EQ(f.added.size(), 1u);
  EXPECT_EQ(f.added[0].first.str(), "rows:4/cols:376");
}

TEST(Spec, FormShapesNameAPickOutsideTheLaunches) {
  kc::Entry e = two_forms();
  auto pick = [](const kc::Shape&) { return std::string("f/typo"); };
  try {
    e.spec.forms = kForms;
    kc::form_shapes(e.spec, pick, e.spec.gate3_shapes());
    FAIL() << "a pick outside the launches must throw";
  } catch (const kc::Error& x) {
    EXPECT_NE(std::string(x.what()).find("f/typo"), std::string::npos) << x.what();
  }
}

TEST(Spec, FormsMustBeLaunches) {
  kc::Entry e = two_forms().picks({"f/small", "f/gone"}, [](const kc::Shape&) { return std::string("f/small"); });
  e.spec.name = "toy/forms", e.spec.backend = "cpu";
  try {
    e.spec.validate();
    FAIL() << "a form outside the launches must not validate";
  } catch (const kc::Error& x) {
    EXPECT_NE(std::string(x.what()).find("f/gone"), std::string::npos) << x.what();
  }
}

TEST(Spec, FormsDefaultToTheLaunches) {
  kc::Entry e = two_forms().picks([](const kc::Shape& s) { return big_past(s, 256); });
  EXPECT_TRUE(e.spec.forms.empty());
  kc::FormShapes f = kc::form_shapes(e.spec, e.rig.pick, e.spec.gate3_shapes());
  ASSERT_EQ(f.added.size(), 1u);
  EXPECT_EQ(f.added[0].second, "f/big");
  // Every launch is a form: the two never picked are named.
  EXPECT_EQ(f.unreached, (std::vector<std::string>{"f/never", "f/beside"}));
}
