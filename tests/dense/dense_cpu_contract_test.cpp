// The CPU contract of the dense entries: every kernel passes gates 1-4 and every control goes red
// on its own gate for its own reason (the runner's verdicts, as CI sees them).
#include <gtest/gtest.h>

#include "backends/factories.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace {
using namespace kc;

std::string verdicts(const std::vector<GateEvent>& ev) {
  std::string s;
  for (const auto& e : ev)
    s += std::string(gate_name(e.gate)) + "=" + status_name(e.status) + (e.why.empty() ? "" : "(" + e.why + ")") +
         (e.detail.empty() ? "" : " [" + e.detail + "]") + "\n";
  return s;
}

void run_family(const std::string& prefix) {
  auto cpu = make_cpu_backend();
  RunOptions opt;
  opt.limits = false;
  int seen = 0;
  for (const auto& r : registry()) {
    if (r.backend != "cpu" || r.name.rfind(prefix, 0) != 0) continue;
    ++seen;
    auto ev = run_entry(r, *cpu, opt);
    ASSERT_FALSE(ev.empty()) << r.name;
    bool red = false;
    for (const auto& e : ev) {
      EXPECT_TRUE(status_ok(e.status)) << r.name << "\n" << verdicts(ev);
      red |= e.status == Status::control_red;
    }
    EXPECT_EQ(red, r.control) << r.name << (r.control ? " stayed green" : " reported a control verdict") << "\n"
                              << verdicts(ev);
  }
  EXPECT_GT(seen, 0) << "no CPU entries named " << prefix;
}

TEST(DenseCpuContract, KernelsPassAndControlsAreRed) { run_family("dense/"); }

}  // namespace
