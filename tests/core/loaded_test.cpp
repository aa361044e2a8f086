// Gate 2's runs under load (Backend::load_start). The load is
// played here by a CPU backend whose load flips a flag; a toy that reads the flag gives other bytes
// only while the load runs, as a kernel whose race only a busy device shows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "harness.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "toy.hpp"

namespace testing_kc {
kc::Backend& cpu() {
  static auto all = kc::make_backends();
  return *all.front();
}
}  // namespace testing_kc

namespace {

using kc::Buffers;
using kc::Gate;
using kc::Status;
using kc::Why;

bool g_loaded = false;

kc::Entry env(kc::Entry e) { return std::move(e).served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8); }

// Like the scale toy, but while the load runs its first output is one ulp off.
void racy(const Buffers& b) {
  toy::scale_kernel(b);
  if (g_loaded) b.out<float>("y")[0] = std::nextafter(b.out<float>("y")[0], 1e30f);
}

struct Loading : testing_kc::CpuForward {
  int starts = 0, stops = 0;
  std::string no_load() override { return ""; }
  std::string load_start() override {
    ++starts;
    g_loaded = true;
    return "a test load";
  }
  std::string load_stop() override {
    ++stops;
    g_loaded = false;
    return "";
  }
};

kc::GateEvent gate2(kc::Backend& b, const std::string& only, kc::RunResult* out = nullptr,
                    std::vector<std::string>* notes = nullptr) {
  kc::RunOptions opt;
  opt.only = only;
  opt.exact = true;
  opt.backend = "cpu";
  opt.limits = false;
  struct Notes : kc::Reporter {
    std::vector<std::string>* to;
    void gate(const kc::GateEvent&) override {}
    void note(const std::string&, const std::string& t) override {
      if (to) to->push_back(t);
    }
    void summary(const kc::Summary&) override {}
  } rep;
  rep.to = notes;
  kc::RunResult r = kc::run(opt, {&b}, {&rep});
  kc::GateEvent e{};
  for (const auto& ev : r.events)
    if (ev.gate == Gate::repeat) e = ev;
  if (out) *out = r;
  return e;
}

}  // namespace

KC_KERNEL("loadtoy/steady", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }
KC_CONTROL("loadtoy/racy", cpu) { return env(toy::scale()).control(Gate::repeat, Why::bytes_differ).launch(racy); }

TEST(Loaded, ACorrectKernelPassesItsRunsUnderLoad) {
  Loading b;
  const kc::GateEvent e = gate2(b, "loadtoy/steady");
  EXPECT_EQ(e.status, Status::pass) << e.detail;
  EXPECT_NE(e.detail.find("5 runs more at 2 of them under load (a test load), each giving run 1's bytes ("),
            std::string::npos)
      << e.detail;
  EXPECT_EQ(b.starts, 2) << "one load an extreme shape";
  EXPECT_EQ(b.stops, b.starts);
}

TEST(Loaded, ARaceOnlyTheLoadShowsIsRed) {
  Loading b;
  kc::RunResult r;
  const kc::GateEvent e = gate2(b, "loadtoy/racy", &r);
  EXPECT_EQ(e.status, Status::control_red) << e.detail;
  EXPECT_NE(e.detail.find("run 1 of 5 under load (a test load)"), std::string::npos) << e.detail;
  EXPECT_EQ(r.exit_code, kc::exit_ok);
  EXPECT_EQ(b.stops, b.starts) << "the load is stopped when a loaded run fails";
  EXPECT_FALSE(g_loaded);
}

TEST(Loaded, WithoutALoadTheRaceHidesAndTheRunSaysWhy) {
  std::vector<std::string> notes;
  kc::RunResult r;
  const kc::GateEvent e = gate2(testing_kc::cpu(), "loadtoy/racy", &r, &notes);
  EXPECT_EQ(e.status, Status::control_green) << e.detail;
  EXPECT_EQ(r.exit_code, kc::exit_fail);
  bool said = false;
  for (const auto& n : notes)
    said |= n == "gate 2 makes no runs under load here: this backend has no work to run beside its kernels";
  EXPECT_TRUE(said);
  const kc::GateEvent ok = gate2(testing_kc::cpu(), "loadtoy/steady");
  EXPECT_EQ(ok.status, Status::pass);
  EXPECT_EQ(ok.detail.find("under load"), std::string::npos) << ok.detail;
}
