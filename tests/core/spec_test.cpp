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
