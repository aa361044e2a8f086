// Bad specs get a clear error naming the entry and the field, never a crash.
#include <gtest/gtest.h>

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
  std::vector<std::string> want = {"rows:1/cols:64",  "rows:1/cols:512", "rows:4/cols:64",  "rows:4/cols:512",
                                   "rows:1/cols:8",   "rows:1/cols:248", "rows:1/cols:256", "rows:1/cols:264"};
  EXPECT_EQ(got, want);
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
