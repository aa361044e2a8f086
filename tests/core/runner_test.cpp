// Known findings and controls are judged by the runner: exit codes CI can trust.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "kc/backend.hpp"

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
