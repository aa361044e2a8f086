// Test helpers: run one registered entry on the CPU and look at its verdicts by gate.
#pragma once
#include <map>
#include <memory>

#include "kc/backend.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace testing_kc {

const kc::Registration& reg(const std::string& name, const std::string& backend = "cpu");
kc::Backend& cpu();
// The CPU backend behind another name: a test backend overrides only what it changes.
struct CpuForward : kc::Backend {
  std::string name() const override { return cpu().name(); }
  std::string absent() const override { return cpu().absent(); }
  void* alloc(size_t n) override { return cpu().alloc(n); }
  void free(void* p) override { cpu().free(p); }
  void upload(void* d, const void* s, size_t n) override { cpu().upload(d, s, n); }
  void download(void* d, const void* s, size_t n) override { cpu().download(d, s, n); }
  void* stream() override { return cpu().stream(); }
  kc::SyncResult sync(double t) override { return cpu().sync(t); }
  std::string recover() override { return cpu().recover(); }
};
// Gate -> verdict for one entry; notes (margins, repro) collected in `notes` when given.
std::map<kc::Gate, kc::GateEvent> verdicts(const std::string& name, kc::RunOptions opt = {},
                                           std::vector<std::string>* notes = nullptr);

}  // namespace testing_kc
