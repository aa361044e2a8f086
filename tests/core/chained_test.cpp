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

kc::RunResult run_on(kc::Backend& b, const std::string& only) {
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  return kc::run(opt, {&b}, {});
}
const kc::GateEvent* gate2(const kc::RunResult& r) {
  for (const auto& e : r.events)
    if (e.gate == Gate::repeat) return &e;
  return nullptr;
}

TEST(Chained, AKernelThatWaitsBeforeReadingPasses) {
  Chaining b;
  auto r = run_on(b, "toy/chained/waits");
  const kc::GateEvent* e = gate2(r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::pass) << e->detail;
  EXPECT_NE(e->detail.find("and a chained run at each, x written late"), std::string::npos) << e->detail;
  EXPECT_GE(b.upstreams, 2) << "one chained run a shape (the smallest and largest)";
  EXPECT_EQ(r.exit_code, kc::exit_ok);
}

TEST(Chained, ItsControlReadingBeforeTheWaitIsRed) {
  Chaining b;
  auto r = run_on(b, "toy/chained/early");
  const kc::GateEvent* e = gate2(r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::control_red) << e->detail;
  EXPECT_NE(e->detail.find("the chained run (x written 50 us late by the kernel ahead)"), std::string::npos)
      << e->detail;
  ASSERT_EQ(r.summaries.size(), 1u);
  EXPECT_EQ(r.summaries[0].controls_red, 1);
  EXPECT_EQ(r.exit_code, kc::exit_ok);
}

// Without the wait the toy is still right alone on the stream: only the chained run tells.
TEST(Chained, TheControlIsGreenWhereTheUpstreamWritesAtOnce) {
  struct Eager : Chaining {
    void launch_upstream(const std::vector<kc::LateWrite>& writes, double) override {
      pending = writes;
      land();
    }
  } b;
  auto r = run_on(b, "toy/chained/early");
  const kc::GateEvent* e = gate2(r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::control_green) << e->detail;
  EXPECT_EQ(r.exit_code, kc::exit_fail);
}

TEST(Chained, WhereNoLaunchStartsEarlyTheRunSaysSoAndTheControlIsNotRun) {
  std::vector<std::string> notes;
  auto v = testing_kc::verdicts("toy/chained/waits", {}, &notes);
  EXPECT_EQ(v[Gate::repeat].status, Status::pass) << v[Gate::repeat].detail;
  EXPECT_EQ(v[Gate::repeat].detail.find("chained run"), std::string::npos) << v[Gate::repeat].detail;
  bool noted = false;
  for (const auto& n : notes) noted |= n.find("no chained run: this backend has no dependent launches") != std::string::npos;
  EXPECT_TRUE(noted) << "gate 2 notes why no chained run was made";

  kc::RunResult ctl = run_on(cpu(), "toy/chained/early");
  ASSERT_EQ(ctl.summaries.size(), 1u);
  const kc::Summary& s = ctl.summaries[0];
  EXPECT_EQ(s.controls, 0);
  EXPECT_EQ(s.controls_not_run, 1);
  EXPECT_EQ(s.errors, 0);
  EXPECT_NE(s.line().find("controls=0/0 controls_not_run=1"), std::string::npos) << s.line();
  ASSERT_NE(gate2(ctl), nullptr);
  EXPECT_EQ(gate2(ctl)->status, Status::na);
  EXPECT_NE(gate2(ctl)->detail.find("control not run: this backend has no dependent launches"), std::string::npos);
  EXPECT_EQ(ctl.exit_code, kc::exit_ok);
}

TEST(Chained, AChainedNameMustBeAnInput) {
  Chaining b;
  auto r = run_on(b, "toy/chained/names_an_output");
  const kc::GateEvent* e = gate2(r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::error);
  EXPECT_NE(e->detail.find("chained('y') must name a declared input"), std::string::npos) << e->detail;
  EXPECT_EQ(r.exit_code, kc::exit_fail);
}

}  // namespace
