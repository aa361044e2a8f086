// The project's own CPU entries: every served kernel green on every gate; every planted control red
// on its gate for its reason and green (or ALSO: caught there too) on the others, each under three
// seeds; every gate 1-4 has a
// control that proves it.
#include <gtest/gtest.h>

#include <set>

#include "kc/backend.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace kc {
// Test names and CTest lines show the entry's name, not the registration's bytes.
void PrintTo(const Registration& r, std::ostream* os) { *os << r.backend << ":" << r.name; }
}  // namespace kc

namespace {

// Three seeds, so a verdict that holds on one draw of the inputs alone shows here (DESIGN.md §2.4).
kc::RunOptions three_seeds() {
  kc::RunOptions o;
  o.seeds = 3;
  return o;
}

kc::Backend& cpu() {
  static auto all = kc::make_backends();
  return *all.front();
}

std::vector<kc::Registration> cpu_entries(bool controls) {
  std::vector<kc::Registration> v;
  // A control built to crash or hang its process can only be run by the command line, whose
  // supervised process it ends: tests/crash runs those through kernel-contract.
  for (const auto& r : kc::registry())
    if (r.backend == "cpu" && r.control == controls) {
      if (controls && (kc::build(r).spec.control_why == kc::Why::fault || kc::build(r).spec.control_why == kc::Why::hang))
        continue;
      v.push_back(r);
    }
  return v;
}

std::string test_name(const testing::TestParamInfo<kc::Registration>& i) {
  std::string n = i.param.name;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class Kernel : public testing::TestWithParam<kc::Registration> {};
class Control : public testing::TestWithParam<kc::Registration> {};

}  // namespace

TEST_P(Kernel, GreenOnEveryGate) {
  for (const auto& e : kc::run_entry(GetParam(), cpu(), three_seeds()))
    EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na)
        << "gate " << int(e.gate) << " " << kc::status_name(e.status) << " " << e.why << " at " << e.shape << ": "
        << e.detail;
}

TEST_P(Control, RedOnItsGateGreenOnTheOthers) {
  kc::Entry spec = kc::build(GetParam());
  for (const auto& e : kc::run_entry(GetParam(), cpu(), three_seeds())) {
    if (e.gate == *spec.spec.control_gate)
      EXPECT_EQ(e.status, kc::Status::control_red) << "gate " << int(e.gate) << ": " << e.detail;
    else
      EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na || e.status == kc::Status::also)
          << "gate " << int(e.gate) << " " << kc::status_name(e.status) << " " << e.why << ": " << e.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, Kernel, testing::ValuesIn(cpu_entries(false)), test_name);
INSTANTIATE_TEST_SUITE_P(Cpu, Control, testing::ValuesIn(cpu_entries(true)), test_name);

TEST(Controls, EveryGateHasACpuControl) {
  std::set<kc::Gate> gates;
  for (const auto& r : cpu_entries(true)) gates.insert(*kc::build(r).spec.control_gate);
  for (kc::Gate g : {kc::Gate::nonfinite, kc::Gate::repeat, kc::Gate::shapes, kc::Gate::sums})
    EXPECT_TRUE(gates.count(g)) << "no CPU control proves gate " << int(g) << " can fail";
}
