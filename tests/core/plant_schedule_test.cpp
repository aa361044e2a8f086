// Gate 1's plant schedule (nonfinite.cpp): every plant at the two smallest shapes of each launch form,
// Rig::plants_at_edges at the other shapes of up to 2^20 elements, Rig::plants_at_scale above.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"

using namespace testing_kc;
using kc::Gate;
using kc::Status;

namespace {

// The plants gate 1 ran at each shape: prepare() sees every case; gate 1 runs first and is the only
// gate that plants, so the first case of another fill (gate 2's) ends the record.
struct Record {
  bool open = true;
  std::map<std::string, std::set<int>> plants;
  std::map<std::string, std::string> forms;  // shape -> pick()
};
Record& record() {
  static Record r;
  return r;
}

// Three launch forms; the middle one (100 to 999 columns) no fixed shape takes, so gate 1 adds a
// searched shape for it.
std::string pick(const kc::Shape& s) {
  return s["cols"] >= 1000 ? "toyplants/wide" : s["cols"] >= 100 ? "toyplants/mid" : "toyplants/narrow";
}
// toy::scale with six plants: its four (0-3), and two it plants nothing for (4: a stand-in for a
// leading-column or NaN-bit plant; 5: for a whole row). Served up to 1024 x 2048 (2^21 elements).
kc::Entry scheduled() {
  kc::Entry e = toy::scale();
  e.rig.plants.push_back("stand-in for a value plant");
  e.rig.plants.push_back("stand-in for a whole row");
  e.rig.plants_at_scale = 4;
  e.rig.plants_at_edges = {0, 1, 2, 3, 5};
  auto prepare = e.rig.prepare;
  e.rig.prepare = [prepare](kc::Case& c) {
    Record& r = record();
    if (c.fill().kind != kc::FillKind::nonfinite) r.open = false;
    if (r.open) r.plants[c.shape().str()].insert(c.fill().plant), r.forms[c.shape().str()] = pick(c.shape());
    prepare(c);
  };
  return std::move(e).served({{"rows", {1, 1024}}, {"cols", {16, 2048}}}).tile("cols", 64, 8, 8);
}
const std::vector<std::string> kForms = {"toyplants/narrow", "toyplants/mid", "toyplants/wide"};

}  // namespace

KC_KERNEL("toyplants/schedule/one_form", cpu) { return scheduled().launch(toy::scale_kernel); }
KC_KERNEL("toyplants/schedule/three_forms", cpu) {
  return scheduled().launches(kForms).picks(kForms, pick).launch(toy::scale_kernel);
}

Record gate1(const std::string& name) {
  record() = Record{};
  auto v = verdicts(name);
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << v[Gate::nonfinite].detail;
  return record();
}

TEST(PlantSchedule, EveryPlantAtTheTwoSmallestShapesEdgePlantsElsewhereBasicAtScale) {
  const std::set<int> all = {0, 1, 2, 3, 4, 5}, edges = {0, 1, 2, 3, 5}, basic = {0, 1, 2, 3};
  auto p = gate1("toyplants/schedule/one_form").plants;
  // The extremes 1 x 16 and 1024 x 2048, and cols 8, 56, 64, 72 (tile edges at one row).
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p["rows:1/cols:8"], all);
  EXPECT_EQ(p["rows:1/cols:16"], all);
  for (const char* s : {"rows:1/cols:56", "rows:1/cols:64", "rows:1/cols:72"}) EXPECT_EQ(p[s], edges) << s;
  EXPECT_EQ(p["rows:1024/cols:2048"], basic);
}

TEST(PlantSchedule, EachLaunchFormsSmallestShapesGetEveryPlant) {
  const std::set<int> all = {0, 1, 2, 3, 4, 5}, edges = {0, 1, 2, 3, 5}, basic = {0, 1, 2, 3};
  Record r = gate1("toyplants/schedule/three_forms");
  auto& p = r.plants;
  EXPECT_EQ(p["rows:1/cols:8"], all);
  EXPECT_EQ(p["rows:1/cols:16"], all);
  EXPECT_EQ(p["rows:1/cols:56"], edges);
  // The wide form's one shape is the largest (the single values); the middle form's, its search's.
  EXPECT_EQ(p["rows:1024/cols:2048"], basic);
  int mid = 0;
  for (const auto& [s, got] : p)
    if (r.forms[s] == "toyplants/mid") {
      ++mid;
      EXPECT_EQ(got, all) << s;
    }
  EXPECT_EQ(mid, 1);
}
