// Known findings and controls are judged by the runner: exit codes CI can trust.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "families/dense/src/ref_gemm.hpp"
#include "harness.hpp"
#include "kc/backend.hpp"
#include "kc/ref_device.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"

using namespace testing_kc;
using kc::Gate;
using kc::Status;

namespace {
kc::RunResult run_only(const std::string& only) {
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  std::vector<kc::Backend*> b{&cpu()};
  return kc::run(opt, b, {});
}
}  // namespace

TEST(Runner, AKnownFindingThatStillFailsIsKnownAndTheRunPasses) {
  auto r = run_only("toy/known/still_fails");
  EXPECT_EQ(r.exit_code, kc::exit_ok);
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_EQ(r.summaries[0].known, 1);
  bool seen = false;
  for (const auto& e : r.events) seen |= e.gate == Gate::nonfinite && e.status == Status::known;
  EXPECT_TRUE(seen);
}

TEST(Runner, AKnownFindingThatStopsFailingFailsTheRun) {
  auto r = run_only("toy/known/fixed");
  EXPECT_EQ(r.exit_code, kc::exit_fail);
  bool fixed = false;
  for (const auto& e : r.events) fixed |= e.status == Status::fixed && e.detail.find("remove") != std::string::npos;
  EXPECT_TRUE(fixed);
}

TEST(Runner, ARedControlPassesTheRun) {
  auto r = run_only("toy/control/red");
  EXPECT_EQ(r.exit_code, kc::exit_ok);
  EXPECT_EQ(r.summaries[0].controls, 1);
  EXPECT_EQ(r.summaries[0].controls_red, 1);
}

TEST(Runner, AControlForcedGreenFailsTheRun) {
  auto r = run_only("toy/control/green");
  EXPECT_EQ(r.exit_code, kc::exit_fail);
  EXPECT_EQ(r.summaries[0].controls_red, 0);
  bool green = false;
  for (const auto& e : r.events) green |= e.status == Status::control_green;
  EXPECT_TRUE(green);
}

TEST(Runner, AFilterMatchingNothingIsItsOwnError) {
  EXPECT_EQ(run_only("no/such/entry/anywhere").exit_code, kc::exit_no_match);
}

TEST(Runner, AFailingKernelFailsTheRunAndTheSummarySaysSo) {
  auto r = run_only("toy/first_run_only");
  EXPECT_EQ(r.exit_code, kc::exit_fail);
  EXPECT_EQ(r.summaries[0].kernels, 1);
  EXPECT_EQ(r.summaries[0].kernels_passing, 0);
  EXPECT_NE(r.summaries[0].line().find("SUMMARY backend=cpu kernels=0/1"), std::string::npos) << r.summaries[0].line();
}

TEST(Runner, AnAbsentBackendSaysSoByNameAndRunsNothing) {
  auto all = kc::make_backends();
  kc::Backend* hip = nullptr;
  for (auto& b : all)
    if (b->name() == "hip") hip = b.get();
  ASSERT_NE(hip, nullptr);
  EXPECT_FALSE(hip->absent().empty());
  kc::RunOptions opt;
  opt.limits = false;
  auto r = kc::run(opt, {hip}, {});
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_NE(r.summaries[0].line().find("absent="), std::string::npos) << r.summaries[0].line();
  EXPECT_EQ(r.summaries[0].kernels_passing, 0);
}

namespace {
// The CPU backend offering a reference device: the CPU itself, or one an ulp off.
struct WithRefs : CpuForward {
  kc::RefDevice dev;
  int asked = 0;
  explicit WithRefs(bool off) {
    dev.name = off ? "a device an ulp off" : "a device that is the CPU";
    dev.dense = [off](const kc::bf16* x, const kc::bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
      kc::fam::ref_dense_cpu(x, w, M, N, K, y, mag);
      if (off) y[0] = std::nextafter(y[0], 1e300);
      return std::string();
    };
    dev.affine = [](const kc::bf16* x, const kc::RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y,
                    double* mag) {
      kc::fam::ref_affine_cpu(x, w, M, N, K, y, mag);
      return std::string();
    };
  }
  // After each launch of the entry: would a reference of 2^28 multiply-adds go to this device now?
  kc::SyncResult sync(double t) override {
    if (kc::fam::ref_device_took(512, 512, 1024, [](const kc::RefDevice&) { return std::string(); })) ++live;
    return cpu().sync(t);
  }
  const kc::RefDevice* references() override { return ++asked, &dev; }
  int live = 0;  // launches during which the run's references could use `dev`
};
struct Notes : kc::Reporter {
  std::vector<std::string> all;
  void gate(const kc::GateEvent&) override {}
  void note(const std::string&, const std::string& t) override { all.push_back(t); }
  void summary(const kc::Summary&) override {}
  bool has(const std::string& s) const {
    for (const auto& t : all)
      if (t.find(s) != std::string::npos) return true;
    return false;
  }
};
kc::RunResult run_with(kc::Backend& b, Notes& n, bool cpu_references = false) {
  kc::RunOptions opt;
  opt.only = "toy/scale/ok";
  opt.limits = false;
  opt.cpu_references = cpu_references;
  return kc::run(opt, {&b}, {&n});
}
}  // namespace

TEST(Runner, AReferenceDeviceThatMatchesTheCpuIsTakenAndNamed) {
  WithRefs b(false);
  Notes n;
  EXPECT_EQ(run_with(b, n).exit_code, kc::exit_ok);
  EXPECT_TRUE(n.has("float64 references of 2^28 multiply-adds or more run on a device that is the CPU")) << n.all.size();
  EXPECT_GT(b.live, 0);  // the entry's gates ran with the device in place
  EXPECT_EQ(kc::fam::ref_device_took(512, 512, 1024, [](const kc::RefDevice&) { return std::string(); }), false)
      << "the device outlived its run";
}

TEST(Runner, AReferenceDeviceAnUlpOffIsRefusedAndTheRunSaysWhy) {
  WithRefs b(true);
  Notes n;
  EXPECT_EQ(run_with(b, n).exit_code, kc::exit_ok);  // the references stay on the CPU: the run is sound
  EXPECT_TRUE(n.has("float64 references stay on the CPU: a device an ulp off does not match it: dense 37x45x300: y[0]"));
  EXPECT_FALSE(n.has("run on a device"));
  EXPECT_EQ(b.live, 0);
}

TEST(Runner, CpuReferencesNeverAsksForTheDevice) {
  WithRefs b(false);
  Notes n;
  EXPECT_EQ(run_with(b, n, true).exit_code, kc::exit_ok);
  EXPECT_EQ(b.asked, 0);
  EXPECT_EQ(b.live, 0);
  EXPECT_FALSE(n.has("float64 references"));
}

// --seeds N: every gate's cases are drawn again under each seed (the first is --seed), and the
// verdict says how many; one seed's cases are among N seeds'.
namespace {
std::set<uint64_t>& seeds_seen() {
  static std::set<uint64_t> s;
  return s;
}
}  // namespace
KC_KERNEL("toy/seeds/logged", cpu) {
  kc::Entry e = toy::scale().served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8);
  auto prepare = e.rig.prepare;
  e.rig.prepare = [prepare](kc::Case& c) {
    seeds_seen().insert(c.seed());
    prepare(c);
  };
  return std::move(e).launch(toy::scale_kernel);
}

TEST(Runner, SeedsDrawEveryCaseAgainUnderEachSeed) {
  kc::RunOptions one;
  seeds_seen().clear();
  for (const auto& e : kc::run_entry(reg("toy/seeds/logged"), cpu(), one)) EXPECT_TRUE(kc::status_ok(e.status));
  const std::set<uint64_t> first = seeds_seen();
  kc::RunOptions three;
  three.seeds = 3;
  seeds_seen().clear();
  auto evs = kc::run_entry(reg("toy/seeds/logged"), cpu(), three);
  ASSERT_FALSE(evs.empty());
  for (const auto& e : evs) {
    EXPECT_TRUE(kc::status_ok(e.status)) << e.detail;
    if (e.status == Status::pass) EXPECT_NE(e.detail.find("under 3 seeds"), std::string::npos) << e.detail;
  }
  EXPECT_EQ(seeds_seen().size(), 3 * first.size());
  for (uint64_t s : first) EXPECT_TRUE(seeds_seen().count(s)) << "the first seed is --seed itself";
}
