// Test helpers: run one registered entry on the CPU and look at its verdicts by gate.
#pragma once
#include <map>
#include <memory>

#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace testing_kc {

const kc::Registration& reg(const std::string& name, const std::string& backend = "cpu");
kc::Backend& cpu();
// Gate -> verdict for one entry; notes (margins, repro) collected in `notes` when given.
std::map<kc::Gate, kc::GateEvent> verdicts(const std::string& name, kc::RunOptions opt = {},
                                           std::vector<std::string>* notes = nullptr);

}  // namespace testing_kc
