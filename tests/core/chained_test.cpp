// Gate 2's chained run (Spec::chained): on a backend whose launches may start before the kernel
// ahead ends, a chained entry runs once more with its chained inputs poisoned, behind an upstream
// kernel that writes their true bytes late. This backend plays that on the CPU: launch_upstream()
// holds the writes until the toy calls toy::wait_ahead() (griddepcontrol.wait's stand-in) or the
// launch is waited for, so a toy that reads x before its wait reads poison.
#include <gtest/gtest.h>

#include <cstring>

#include "harness.hpp"
#include "kc/backend.hpp"
#include "kc/runner.hpp"
#include "toy.hpp"

namespace {

using kc::Gate;
using kc::Status;
using testing_kc::cpu;

struct Chaining : testing_kc::CpuForward {
  std::vector<kc::LateWrite> pending;
  int upstreams = 0;
  Chaining() {
    toy::on_wait_ahead([this] { land(); });
  }
  ~Chaining() override { toy::on_wait_ahead({}); }
  void land() {
    for (const auto& w : pending) std::memcpy(w.dst, w.src, w.bytes);
    pending.clear();
  }
  std::string chains() override { return ""; }
  void launch_upstream(const std::vector<kc::LateWrite>& writes, double delay_us) override {
    EXPECT_GT(delay_us, 0);
    pending = writes;
    ++upstreams;
  }
  kc::SyncResult sync(double t) override {
    land();  // the upstream kernel has ended by the time its dependents have
    return cpu().sync(t);
  }
};

// Runs `only` on b: its gate 2 verdict must have `status` and say `says`, the run exit with `exit`.
kc::RunResult expect_gate2(kc::Backend& b, const std::string& only, Status status, const std::string& says, int exit) {
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  kc::RunResult r = kc::run(opt, {&b}, {});
  const kc::GateEvent* e = nullptr;
  for (const auto& ev : r.events)
    if (ev.gate == Gate::repeat) e = &ev;
  EXPECT_NE(e, nullptr) << only;
  if (e) {
    EXPECT_EQ(e->status, status) << only << ": " << e->detail;
    EXPECT_NE(e->detail.find(says), std::string::npos) << only << ": " << e->detail;
  }
  EXPECT_EQ(r.exit_code, exit) << only;
  return r;
}

TEST(Chained, AKernelThatWaitsBeforeReadingPasses) {
  Chaining b;
  expect_gate2(b, "toy/chained/waits", Status::pass, "and a chained run at each, x written late", kc::exit_ok);
  EXPECT_GE(b.upstreams, 2) << "one chained run a shape (the smallest and largest)";
}

TEST(Chained, ItsControlReadingBeforeTheWaitIsRed) {
  Chaining b;
  auto r = expect_gate2(b, "toy/chained/early", Status::control_red,
                        "the chained run (x written 50 us late by the kernel ahead)", kc::exit_ok);
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_EQ(r.summaries[0].controls_red, 1);
}

// Without the wait the toy is still right alone on the stream: only the chained run tells.
TEST(Chained, TheControlIsGreenWhereTheUpstreamWritesAtOnce) {
  struct Eager : Chaining {
    void launch_upstream(const std::vector<kc::LateWrite>& writes, double) override {
      pending = writes;
      land();
    }
  } b;
  expect_gate2(b, "toy/chained/early", Status::control_green, "stayed green", kc::exit_fail);
}

TEST(Chained, WhereNoLaunchStartsEarlyTheRunSaysSoAndTheControlIsNotRun) {
  std::vector<std::string> notes;
  auto v = testing_kc::verdicts("toy/chained/waits", {}, &notes);
  EXPECT_EQ(v[Gate::repeat].status, Status::pass) << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::repeat].detail.find("chained run"), std::string::npos) << v[Gate::repeat].detail;
  bool noted = false;
  for (const auto& n : notes) noted |= n.find("no chained run: this backend has no dependent launches") != std::string::npos;
  EXPECT_TRUE(noted) << "gate 2 notes why no chained run was made";

  auto ctl = expect_gate2(cpu(), "toy/chained/early", Status::na,
                          "control not run: this backend has no dependent launches", kc::exit_ok);
  ASSERT_EQ(ctl.summaries.size(), 1u);
  const kc::Summary& s = ctl.summaries[0];
  EXPECT_EQ(s.controls, 0);
  EXPECT_EQ(s.controls_not_run, 1);
  EXPECT_EQ(s.errors, 0);
  EXPECT_NE(s.line().find("controls=0/0 controls_not_run=1"), std::string::npos) << s.line();
}

TEST(Chained, AChainedNameMustBeAnInput) {
  Chaining b;
  expect_gate2(b, "toy/chained/names_an_output", Status::error, "chained('y') must name a declared input",
               kc::exit_fail);
}

}  // namespace
