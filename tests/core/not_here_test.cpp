// kc::NotHere: a control whose builder says its fault cannot run on this device is counted apart
// (controls_not_run), never green, red or an error; a kernel saying so is an error.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "kc/not_here.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

KC_CONTROL("nothere/control", cpu) { throw kc::NotHere("its fault needs hardware this device lacks"); }
KC_KERNEL("nothere/kernel", cpu) { throw kc::NotHere("it needs hardware this device lacks"); }

namespace {
kc::RunResult run_only(const std::string& only) {
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  return kc::run(opt, {&testing_kc::cpu()}, {});
}
}  // namespace

TEST(NotHere, AControlThatCannotRunHereIsCountedApart) {
  const kc::RunResult r = run_only("nothere/control");
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_EQ(r.summaries[0].controls, 0);
  EXPECT_EQ(r.summaries[0].controls_not_run, 1);
  EXPECT_EQ(r.summaries[0].errors, 0);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].status, kc::Status::na);
  EXPECT_NE(r.events[0].detail.find("control not run on this device: its fault needs"), std::string::npos) << r.events[0].detail;
  EXPECT_EQ(r.exit_code, kc::exit_ok);
}

TEST(NotHere, AKernelSayingItCannotRunHereIsAnError) {
  const kc::RunResult r = run_only("nothere/kernel");
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_EQ(r.summaries[0].errors, 1);  // an entry that could not run: an error, no gate failed
  EXPECT_EQ(r.summaries[0].failures, 0);
  EXPECT_EQ(r.summaries[0].kernels_passing, 0);
  EXPECT_NE(r.exit_code, kc::exit_ok);
}
