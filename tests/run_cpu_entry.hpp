// Runs one registered CPU entry of this test binary through the runner (gate 5 off) and returns its
// gate events by gate: the tests that register toy kernels read their verdicts from it.
#pragma once
#include <map>
#include <stdexcept>
#include <string>

#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace kc_test {

inline std::map<kc::Gate, kc::GateEvent> run_cpu_entry(const std::string& name) {
  static auto backends = kc::make_backends();
  kc::RunOptions o;
  o.limits = false;
  for (const auto& r : kc::registry())
    if (r.name == name && r.backend == "cpu") {
      std::map<kc::Gate, kc::GateEvent> m;
      for (auto& e : kc::run_entry(r, *backends.front(), o, {})) m[e.gate] = e;
      return m;
    }
  throw std::runtime_error("no entry " + name);
}

}  // namespace kc_test
