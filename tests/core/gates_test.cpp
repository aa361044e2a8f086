// Each gate on toy kernels that are right, and on kernels broken in the one way a gate must catch.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "harness.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"
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
  // Gate 1's plants sit mid-row (the lost last input is finite) and gate 2's runs agree: both pass.
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::repeat].status, Status::pass);
  // The served shapes are whole tiles, but gate 4 also runs at the smallest ragged one in them.
  EXPECT_EQ(v[Gate::sums].status, Status::fail) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].shape, "rows:1/cols:72") << v[Gate::sums].detail;
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
  EXPECT_NE(v[Gate::repeat].detail.find("5 runs at 2 shapes"), std::string::npos) << v[Gate::repeat].detail;
  // Gate 1 adds no form shape either; its 6 are the extremes and cols at 8, 56, 64 and 72 (tile edges).
  EXPECT_NE(v[Gate::nonfinite].detail.find("at 6 shapes"), std::string::npos) << v[Gate::nonfinite].detail;
}

TEST(Gates, PickOfAnUnlistedLaunchIsAnError) {
  auto v = verdicts("toy/forms/misnamed");
  EXPECT_EQ(v[Gate::shapes].status, Status::error) << v[Gate::shapes].detail;
  EXPECT_NE(v[Gate::shapes].detail.find("toy/forms/other"), std::string::npos) << v[Gate::shapes].detail;
}

// The shape rules of gates 1-4 (Spec::gate3_shapes, tile_edge_shapes, smallest_ragged), each with a
// planted kernel that only the new shapes catch.
namespace {
using kc::Buffers;
// rows and cols both tiled, every served size a whole tile.
kc::Entry grid_env() {
  return toy::scale().served({{"rows", {4, 8}}, {"cols", {64, 128}}}).tile("rows", 4, 1, 1).tile("cols", 64, 8, 8);
}
bool both_ragged(const Buffers& b) { return b.shape()["rows"] % 4 && b.shape()["cols"] % 64; }
// Right unless both dims are ragged: then the last element is lost.
void corner_drops_last(const Buffers& b) {
  toy::scale_kernel(b);
  if (both_ragged(b)) b.out<float>("y")[b.count("y") - 1] = 0;
}
// Both ragged: the first output moves by an ulp on every other run.
void corner_varies(const Buffers& b) {
  static int n = 0;
  toy::scale_kernel(b);
  if (both_ragged(b) && n++ % 2) b.out<float>("y")[0] = std::nextafter(b.out<float>("y")[0], INFINITY);
}
// Reads row r at r times cols rounded down to whole 8-column vectors: right at one row or whole vectors.
void stride_of_vectors(const Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"], stride = cols / 8 * 8;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) b.out<float>("y")[r * cols + j] = 2 * b.in<float>("x")[r * stride + j];
}
// Sentinel-padded second tile: a NaN there becomes 0, only for 65..127 columns.
void second_tile_drops_nan(const Buffers& b) {
  toy::scale_kernel(b);
  if (b.shape()["cols"] > 64 && b.shape()["cols"] < 128)
    for (size_t i = 0; i < b.count("y"); ++i)
      if (std::isnan(b.out<float>("y")[i])) b.out<float>("y")[i] = 0;
}
// Sums a partial tile's columns in fp16 (whole tiles in fp32, as toy::rowsum_kernel).
void half_tail_sum(const Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"], whole = cols / 64 * 64;
  for (int64_t i = 0; i < rows; ++i) {
    const float* x = b.in<float>("x") + i * cols;
    float s = toy::lanes_sum(x, whole);
    for (int64_t j = whole; j < cols; ++j) s = kc::from_f16(kc::to_f16(s + x[j]));
    b.out<float>("y")[i] = s;
  }
}
// Its first launch at each served extreme in the process differs by an ulp (a plan made on first sight).
void first_sight_differs(const Buffers& b) {
  static std::set<std::string> seen;
  toy::scale_kernel(b);
  const std::string s = b.shape().str();
  if ((s == "rows:1/cols:16" || s == "rows:5/cols:64") && seen.insert(s).second)
    b.out<float>("y")[0] = std::nextafter(b.out<float>("y")[0], INFINITY);
}
kc::Entry cols_env(kc::Entry e, int64_t step) {
  return std::move(e).served({{"rows", {1, 4}}, {"cols", {64, 256}}}).tile("cols", 64, step, step);
}
}  // namespace

KC_KERNEL("toyshape/corner/drops_last", cpu) { return grid_env().launch(corner_drops_last); }
KC_KERNEL("toyshape/corner/varies", cpu) { return grid_env().launch(corner_varies); }
KC_KERNEL("toyshape/stride/vectors", cpu) { return cols_env(toy::scale(), 4).launch(stride_of_vectors); }
KC_KERNEL("toyshape/nan/second_tile", cpu) { return cols_env(toy::scale(), 8).launch(second_tile_drops_nan); }
KC_KERNEL("toyshape/sums/half_tail", cpu) {
  return cols_env(toy::rowsum(), 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 8 + 3); })
      .launch(half_tail_sum);
}
KC_KERNEL("toyshape/first/sight", cpu) {
  return toy::scale().served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8).launch(first_sight_differs);
}

// Each dim ragged alone (the old shapes) never loses it; the corner, rows 5 x cols 72, does.
TEST(ShapeRules, CornerCatchesAKernelWrongOnlyWhereEveryDimIsRagged) {
  auto v = verdicts("toyshape/corner/drops_last");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::shapes].shape, "rows:5/cols:72") << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << v[Gate::nonfinite].detail;
}

// Cols's edges at one row (the old shapes) read row 0 alone; at the second size, 2 rows, row 1 is wrong.
TEST(ShapeRules, SecondSizeCatchesARowStrideWrongOnlyFromTwoRows) {
  auto v = verdicts("toyshape/stride/vectors");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::shapes].shape, "rows:2/cols:4") << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::nonfinite].status, Status::pass) << "gate 1's shapes beside the extremes have one row";
}

// Gate 1 at tile + step: the served shapes are whole tiles, and only 72 columns is in 65..127.
TEST(ShapeRules, NonfiniteRunsAtTheTileEdges) {
  auto v = verdicts("toyshape/nan/second_tile");
  EXPECT_EQ(v[Gate::nonfinite].status, Status::fail) << v[Gate::nonfinite].detail;
  EXPECT_EQ(v[Gate::nonfinite].shape, "rows:1/cols:72") << v[Gate::nonfinite].detail;
  auto ok = verdicts("toy/scale/ok");  // extremes 1 x 16, 5 x 64; cols 8, 56 and 64 (72 is past 64)
  EXPECT_NE(ok[Gate::nonfinite].detail.find("at 5 shapes"), std::string::npos) << ok[Gate::nonfinite].detail;
}

// Gate 4 at the smallest ragged served shape: the extremes (64, 256 columns) are whole tiles.
TEST(ShapeRules, SumsRunAtTheSmallestRaggedShape) {
  auto v = verdicts("toyshape/sums/half_tail");
  EXPECT_EQ(v[Gate::sums].status, Status::fail) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].shape, "rows:1/cols:72") << v[Gate::sums].detail;
  EXPECT_NE(verdicts("toy/rowsum/ok")[Gate::sums].detail.find("at 3 shapes"), std::string::npos);
}

// Gate 2 runs twice at every gate 3 shape: bytes that vary only at the corner show.
TEST(ShapeRules, RepeatRunsAtEveryShapeOfGateThree) {
  auto v = verdicts("toyshape/corner/varies");
  EXPECT_EQ(v[Gate::repeat].status, Status::fail) << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::repeat].why, "bytes_differ") << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::repeat].shape, "rows:5/cols:72") << v[Gate::repeat].detail;
  // toy/scale/ok: gate 3's 11 shapes, 2 of them gate 2's own; gate 1 launched first at 5.
  auto ok = verdicts("toy/scale/ok");
  EXPECT_NE(ok[Gate::shapes].detail.find("11 shapes"), std::string::npos) << ok[Gate::shapes].detail;
  EXPECT_NE(ok[Gate::repeat].detail.find("5 runs at 2 shapes, 2 at 9 more (gate 3's), gate 1's first launch again at 5"),
            std::string::npos)
      << ok[Gate::repeat].detail;
}

// Gate 1 launches first at the extremes; gate 2 runs its case there again and compares the bytes.
TEST(ShapeRules, RepeatComparesAShapesFirstLaunch) {
  auto v = verdicts("toyshape/first/sight");
  EXPECT_EQ(v[Gate::repeat].status, Status::fail) << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::repeat].shape, "rows:1/cols:16") << v[Gate::repeat].detail;
  EXPECT_NE(v[Gate::repeat].detail.find("first launch"), std::string::npos) << v[Gate::repeat].detail;
}
