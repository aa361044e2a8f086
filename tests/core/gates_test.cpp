// Each gate on toy kernels that are right, and on kernels broken in the one way a gate must catch.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "kc/backend.hpp"

using namespace testing_kc;
using kc::Gate;
using kc::Status;

namespace testing_kc {

const kc::Registration& reg(const std::string& name, const std::string& backend) {
  for (const auto& r : kc::registry())
    if (r.name == name && r.backend == backend) return r;
  throw std::runtime_error("no registration " + name);
}

kc::Backend& cpu() {
  static auto all = kc::make_backends();
  return *all.front();
}

std::map<Gate, kc::GateEvent> verdicts(const std::string& name, kc::RunOptions opt, std::vector<std::string>* notes) {
  struct Notes : kc::Reporter {
    std::vector<std::string>* out;
    void gate(const kc::GateEvent&) override {}
    void note(const std::string&, const std::string& t) override {
      if (out) out->push_back(t);
    }
    void summary(const kc::Summary&) override {}
  } n;
  n.out = notes;
  std::map<Gate, kc::GateEvent> m;
  for (auto& e : kc::run_entry(reg(name), cpu(), opt, {&n})) m[e.gate] = e;
  return m;
}

}  // namespace testing_kc

TEST(Gates, CorrectKernelPassesEveryGate) {
  auto v = verdicts("toy/scale/ok");
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::repeat].status, Status::pass) << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::shapes].status, Status::pass) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::sums].status, Status::na) << "no sums: gate 4 does not apply, and says so";
}

TEST(Gates, SumPassesAllFourIncludingExactSums) {
  std::vector<std::string> notes;
  auto v = verdicts("toy/rowsum/ok", {}, &notes);
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums})
    EXPECT_EQ(v[g].status, Status::pass) << kc::gate_name(g) << ": " << v[g].detail;
  bool margins = false;
  for (const auto& n : notes) margins |= n.find("replays miss") != std::string::npos;
  EXPECT_TRUE(margins) << "gate 4 prints how far each replay missed";
}

TEST(Gates, NonfiniteCatchesDroppedNaN) {
  auto v = verdicts("toy/control/red");
  EXPECT_EQ(v[Gate::nonfinite].status, Status::control_red) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::nonfinite].why, "class_mismatch");
  EXPECT_NE(v[Gate::nonfinite].detail.find("want NaN got finite"), std::string::npos) << v[Gate::nonfinite].detail;
}

TEST(Gates, OutputsWrittenOnlyOnTheFirstRunAreCaught) {
  auto v = verdicts("toy/first_run_only");
  EXPECT_EQ(v[Gate::repeat].status, Status::fail);
  EXPECT_EQ(v[Gate::repeat].why, "bytes_differ") << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << "poison must never pass as an output";
}

TEST(Gates, WritePastTheEndBreaksTheGuard) {
  auto v = verdicts("toy/past_end");
  EXPECT_EQ(v[Gate::repeat].why, "guard_broken") << v[Gate::repeat].detail;
  EXPECT_NE(v[Gate::repeat].detail.find("past its end"), std::string::npos);
  EXPECT_EQ(v[Gate::shapes].why, "guard_broken") << "every run checks the guards, not just gate 2's";
}

TEST(Gates, WritingIntoAnInputIsCaught) {
  auto v = verdicts("toy/into_input");
  EXPECT_EQ(v[Gate::repeat].status, Status::fail);
  EXPECT_EQ(v[Gate::repeat].why, "input_changed") << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::shapes].status, Status::pass) << "its outputs are right; only gate 2 can see it";
}

TEST(Gates, AnInPlaceKernelSeesItsInputRestoredBeforeEveryRun) {
  auto v = verdicts("toy/scale/in_place");
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes})
    EXPECT_EQ(v[g].status, Status::pass) << kc::gate_name(g) << ": " << v[g].detail;
}

TEST(Gates, AThrowingLaunchIsAnErrorNotAPass) {
  auto v = verdicts("toy/throws");
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums}) {
    if (g == Gate::sums) continue;  // no sums: n/a
    EXPECT_EQ(v[g].status, Status::error) << kc::gate_name(g);
    EXPECT_NE(v[g].detail.find("simulated trap"), std::string::npos) << v[g].detail;
  }
}

TEST(Gates, HalfPrecisionSumsFailGateFour) {
  auto v = verdicts("toy/rowsum/fp16");
  EXPECT_EQ(v[Gate::sums].status, Status::fail);
  EXPECT_EQ(v[Gate::sums].why, "bound") << v[Gate::sums].detail;
}

TEST(Gates, AWeakFillFailsGateFourBeforeTheKernelRuns) {
  auto v = verdicts("toy/rowsum/weak");
  EXPECT_EQ(v[Gate::sums].status, Status::fail);
  EXPECT_EQ(v[Gate::sums].why, "weak_fill") << v[Gate::sums].detail;
}

TEST(Gates, AHiddenSumErrorPrintsMarginsInstead) {
  std::vector<std::string> notes;
  auto v = verdicts("toy/rowsum/weak_hidden", {}, &notes);
  EXPECT_EQ(v[Gate::sums].status, Status::pass) << v[Gate::sums].detail;
  bool printed = false;
  for (const auto& n : notes) printed |= n.find("margins only (toy: margins only)") != std::string::npos;
  EXPECT_TRUE(printed);
}

TEST(Gates, TailLossPassesAtWholeTilesAndFailsAtEdges) {
  auto v = verdicts("toy/rowsum/tail");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail);
  EXPECT_EQ(v[Gate::shapes].why, "bound") << v[Gate::shapes].detail;
  // The served shapes are whole tiles: gates 1, 2 and 4 run there and pass.
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::repeat].status, Status::pass);
  EXPECT_EQ(v[Gate::sums].status, Status::pass) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::shapes].shape.find("cols:64"), std::string::npos) << "fails at an edge, not a whole tile";
}

TEST(Gates, ReplacementMustBeBitEqual) {
  EXPECT_EQ(verdicts("toy/rowsum/replace_ok")[Gate::shapes].status, Status::pass);
  auto v = verdicts("toy/rowsum/replace_ulp");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail);
  EXPECT_EQ(v[Gate::shapes].why, "not_bit_equal") << v[Gate::shapes].detail;
}

TEST(Gates, ReproShrinksToTheSmallestFailingShape) {
  kc::RunOptions opt;
  opt.repro = true;
  std::vector<std::string> notes;
  verdicts("toy/rowsum/tail", opt, &notes);
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  EXPECT_NE(all.find("smallest failing shape rows:1/cols:8"), std::string::npos) << all;
  EXPECT_NE(all.find("x (f32 x8):"), std::string::npos) << "prints the input values\n" << all;
}

TEST(Gates, ReproShrinksThePlantedPosition) {
  kc::RunOptions opt;
  opt.repro = true;
  std::vector<std::string> notes;
  verdicts("toy/control/red", opt, &notes);
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  EXPECT_NE(all.find("at column 0"), std::string::npos) << all;
}

// Gate 3 runs each launch form at a ragged shape: the wide form's dropped tail shows only there.
TEST(Gates, ShapesRunEveryLaunchFormRagged) {
  auto unpicked = verdicts("toy/forms/unpicked");
  EXPECT_EQ(unpicked[Gate::shapes].status, Status::pass)
      << "without picks the fixed shapes reach the wide form only at whole tiles: " << unpicked[Gate::shapes].detail;
  auto picked = verdicts("toy/forms/picked");
  EXPECT_EQ(picked[Gate::shapes].status, Status::fail) << picked[Gate::shapes].detail;
  EXPECT_EQ(picked[Gate::shapes].shape, "rows:1/cols:136") << picked[Gate::shapes].detail;
  EXPECT_NE(picked[Gate::shapes].detail.find("toy/forms/wide"), std::string::npos) << picked[Gate::shapes].detail;
  auto ok = verdicts("toy/forms/picked_ok");
  EXPECT_EQ(ok[Gate::shapes].status, Status::pass) << ok[Gate::shapes].detail;
  EXPECT_NE(ok[Gate::shapes].detail.find("toy/forms/wide at rows:1/cols:136"), std::string::npos) << ok[Gate::shapes].detail;
}

// Gates 1, 2 and 4 run every launch form too: a form neither extreme shape takes, which drops NaN, is
// caught by gate 1 at the smallest searched shape that takes it.
TEST(Gates, NonfiniteRunsEveryLaunchForm) {
  auto v = verdicts("toy/forms/mid_drops_nan");
  EXPECT_EQ(v[Gate::nonfinite].status, Status::fail) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::nonfinite].shape, "rows:1/cols:72") << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::repeat].status, Status::pass) << v[Gate::repeat].detail;
  EXPECT_NE(v[Gate::repeat].detail.find("at 3 shapes"), std::string::npos) << v[Gate::repeat].detail;
}

// ... but only inside the served ranges: a form taken only below them (at gate 3's least, 8 columns)
// meets gate 3 alone.
TEST(Gates, FormShapesOfGates124StayInTheServedRanges) {
  auto v = verdicts("toy/forms/below_served");
  EXPECT_EQ(v[Gate::shapes].status, Status::pass) << v[Gate::shapes].detail;
  EXPECT_NE(v[Gate::repeat].detail.find("at 2 shapes"), std::string::npos) << v[Gate::repeat].detail;
  EXPECT_NE(v[Gate::nonfinite].detail.find("at 2 shapes"), std::string::npos) << v[Gate::nonfinite].detail;
}

TEST(Gates, PickOfAnUnlistedLaunchIsAnError) {
  auto v = verdicts("toy/forms/misnamed");
  EXPECT_EQ(v[Gate::shapes].status, Status::error) << v[Gate::shapes].detail;
  EXPECT_NE(v[Gate::shapes].detail.find("toy/forms/other"), std::string::npos) << v[Gate::shapes].detail;
}
