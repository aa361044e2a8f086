// Gate 5 at run time (core/src/gates/launches.cpp): a backend that watches launches reports what
// each run of an entry started; the runner checks it against the entry's launch records and pick.
// The toy hooks say what they start (toy::launched); this backend maps names to a record table.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "kc/backend.hpp"
#include "kc/runner.hpp"
#include "toy.hpp"

namespace {

using kc::Gate;
using kc::Status;
using testing_kc::cpu;

struct Watching : testing_kc::CpuForward {
  std::string refuse;  // non-empty: watch() says this
  bool on = false;
  bool watches() const override { return true; }
  std::string watch() override {
    toy::take_launched();
    on = refuse.empty();
    return refuse;
  }
  std::vector<kc::SeenLaunch> seen() override {
    std::vector<kc::SeenLaunch> v;
    for (const auto& l : toy::take_launched()) {
      kc::SeenLaunch s{l.fn, l.threads, 0, {}, l.stream};
      if (l.fn == "toy_main") s.records = {{"toy/launch/main", 256, 0}};
      if (l.fn == "toy_wide") s.records = {{"toy/launch/wide", 256, 0}};
      if (l.fn == "toy_other") s.records = {{"toy/launch/other", 256, 0}};
      if (on) v.push_back(std::move(s));
    }
    on = false;
    return v;
  }
};

// The run-time gate 5 event of one entry run on `b`, and the run's exit code.
struct Verdict {
  kc::GateEvent ev;
  int exit_code;
  int limit_problems;
};
Verdict run_on(kc::Backend& b, const std::string& only) {
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  auto r = kc::run(opt, {&b}, {});
  Verdict v{{}, r.exit_code, r.summaries.empty() ? -1 : r.summaries[0].limit_problems};
  int n = 0;
  for (const auto& e : r.events)
    if (e.gate == Gate::limits && e.detail.rfind("at run time: ", 0) == 0) v.ev = e, ++n;
  EXPECT_EQ(n, 1) << only << ": one run-time gate 5 verdict an entry";
  return v;
}

TEST(LaunchWatch, LaunchesUnderTheirRecordsPass) {
  Watching b;
  auto v = run_on(b, "toy/launch/ok");
  EXPECT_EQ(v.ev.status, Status::pass) << v.ev.detail;
  EXPECT_NE(v.ev.detail.find("toy/launch/main x"), std::string::npos) << v.ev.detail;
  EXPECT_EQ(v.exit_code, kc::exit_ok);
}

// The entry's run-time gate 5 verdict fails for Why::launch, saying `says`; the run fails with it.
void expect_launch_failure(const std::string& entry, const std::string& says) {
  Watching b;
  auto v = run_on(b, entry);
  EXPECT_EQ(v.ev.status, Status::fail) << entry;
  EXPECT_EQ(v.ev.why, "launch") << entry;
  EXPECT_NE(v.ev.detail.find(says), std::string::npos) << v.ev.detail;
  EXPECT_EQ(v.limit_problems, 1) << entry;
  EXPECT_EQ(v.exit_code, kc::exit_fail) << entry;
}

TEST(LaunchWatch, AFunctionWithNoRecordFails) {
  expect_launch_failure("toy/launch/unrecorded",
                        "launched toy_helper (64 threads a block, 0 dynamic shared bytes), which no launch record registers");
}

TEST(LaunchWatch, ABlockLargerThanItsRecordFails) {
  expect_launch_failure("toy/launch/big_block", "declares at most 256 threads");
}

TEST(LaunchWatch, AnotherEntrysLaunchFails) {
  expect_launch_failure("toy/launch/not_ours",
                        "registered as toy/launch/other, which is not one of this entry's launches");
}

TEST(LaunchWatch, ThePickedFormMustBeTheOneLaunched) {
  Watching b;
  auto ok = run_on(b, "toy/launch/picked");
  EXPECT_EQ(ok.ev.status, Status::pass) << ok.ev.detail;
  EXPECT_NE(ok.ev.detail.find("the picked form launched in every run"), std::string::npos) << ok.ev.detail;
  EXPECT_NE(ok.ev.detail.find("toy/launch/wide x"), std::string::npos) << ok.ev.detail;
  // Between 129 and 192 columns the pick says wide and the launcher takes main: gate 3's form search
  // runs such a shape (and the fixed shapes may not).
  expect_launch_failure("toy/launch/pick_lies", "the pick names toy/launch/wide, but the launcher started toy/launch/main");
}

TEST(LaunchWatch, ItsControlIsRedWhereLaunchesAreWatched) {
  Watching b;
  auto v = run_on(b, "toy/launch/control");
  EXPECT_EQ(v.ev.status, Status::control_red) << v.ev.detail;
  EXPECT_EQ(v.exit_code, kc::exit_ok);
}

// A launch on another stream than the harness's is an error naming the kernel and the stream (its
// record and block are right: the stream alone is wrong); its control is red.
TEST(LaunchWatch, ALaunchOnAnotherStreamIsAnError) {
  Watching b;
  auto v = run_on(b, "toy/launch/default_stream");
  EXPECT_EQ(v.ev.status, Status::error) << v.ev.detail;
  EXPECT_EQ(v.ev.why, "stream") << v.ev.detail;
  EXPECT_NE(v.ev.detail.find("launched toy_main on the legacy default stream, not the harness's stream"),
            std::string::npos)
      << v.ev.detail;
  EXPECT_EQ(v.exit_code, kc::exit_fail);
  auto ctl = run_on(b, "toy/launch/stream_control");
  EXPECT_EQ(ctl.ev.status, Status::control_red) << ctl.ev.detail;
  EXPECT_EQ(ctl.exit_code, kc::exit_ok);
}

TEST(LaunchWatch, WhereWatchingFailsTheGateDoesNotApplyAndItsControlIsNotRed) {
  Watching b;
  b.refuse = "another tool holds the launch callbacks";
  auto served = run_on(b, "toy/launch/unrecorded");
  EXPECT_EQ(served.ev.status, Status::na);
  EXPECT_NE(served.ev.detail.find("not watched: another tool holds"), std::string::npos) << served.ev.detail;
  auto ctl = run_on(b, "toy/launch/control");
  EXPECT_EQ(ctl.ev.status, Status::control_green);
  EXPECT_EQ(ctl.exit_code, kc::exit_fail);
}

TEST(LaunchWatch, ABackendThatCannotWatchGivesItsControlNoPass) {
  auto ctl = run_on(cpu(), "toy/launch/control");
  EXPECT_EQ(ctl.ev.status, Status::control_green);
  EXPECT_NE(ctl.ev.detail.find("does not watch its launches"), std::string::npos) << ctl.ev.detail;
  EXPECT_EQ(ctl.exit_code, kc::exit_fail);
  // A served entry there has no run-time gate 5 verdict at all (nothing was claimed).
  kc::RunOptions opt;
  opt.only = "toy/launch/unrecorded";
  opt.limits = false;
  auto r = kc::run(opt, {&cpu()}, {});
  for (const auto& e : r.events) EXPECT_NE(e.gate, Gate::limits) << e.detail;
  EXPECT_EQ(r.exit_code, kc::exit_ok);
}

}  // namespace
