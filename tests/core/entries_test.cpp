// Every gate 1-4 has a CPU control that proves it can fail. (Each CPU entry itself, green on every
// gate or red on its own, is a CTest test of its own through the command line: tests/contract.)
#include <gtest/gtest.h>

#include <set>

#include "kc/registry.hpp"

namespace {

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

}  // namespace

TEST(Controls, EveryGateHasACpuControl) {
  std::set<kc::Gate> gates;
  for (const auto& r : cpu_entries(true)) gates.insert(*kc::build(r).spec.control_gate);
  for (kc::Gate g : {kc::Gate::nonfinite, kc::Gate::repeat, kc::Gate::shapes, kc::Gate::sums})
    EXPECT_TRUE(gates.count(g)) << "no CPU control proves gate " << int(g) << " can fail";
}
