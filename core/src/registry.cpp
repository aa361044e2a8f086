#include "kc/registry.hpp"
#include "kc/not_here.hpp"

#include <fmt/format.h>

namespace kc {

std::vector<Registration>& registry() {
  static std::vector<Registration> r;
  return r;
}

Registrar::Registrar(const char* name, const char* backend, const char* file, int line, bool control,
                     Entry (*make)()) {
  registry().push_back({name, backend, file, line, control, make});
}

Entry build(const Registration& r) {
  Entry e;
  try {
    e = r.make();
  } catch (const NotHere&) {
    throw;  // not a failure: the runner counts a control apart (kc/not_here.hpp)
  } catch (const std::exception& x) {
    throw Error(fmt::format("{} ({}, {}:{}): building the entry failed: {}", r.name, r.backend, r.file, r.line, x.what()));
  }
  e.spec.name = r.name;
  e.spec.backend = r.backend;
  e.spec.file = r.file;
  e.spec.line = r.line;
  e.spec.control = r.control;
  auto fail = [&](const char* field, const char* what) {
    throw Error(fmt::format("{} ({}, {}:{}): {}: {}", r.name, r.backend, r.file, r.line, field, what));
  };
  if (!e.rig.prepare) fail("prepare", "the rig has no prepare hook (start from an input family)");
  if (!e.rig.reference) fail("reference", "the rig has no float64 reference");
  if (!e.rig.run) fail("launch", "the entry has no launch (.launch(...))");
  if (!e.spec.replaces.empty() && !e.rig.replaced) fail("replaces", "names a kernel but gives no hook to run it");
  if (e.spec.rule.empty() != !(e.rig.rule || e.rig.rules_per_output))
    fail("rule", "a stated NaN rule needs both its text and its check");
  if (e.spec.sums && e.spec.sums->summed && !e.rig.simulate) fail("sums", "declares sums but the rig cannot replay them (no simulate)");
  e.spec.validate();
  return e;
}

std::vector<std::string> duplicate_names() {
  std::vector<std::string> out;
  const auto& r = registry();
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (r[i].name == r[j].name && r[i].backend == r[j].backend) {
        out.push_back(fmt::format("duplicate name '{}' on backend {}: registered at {}:{} and {}:{}", r[i].name,
                                  r[i].backend, r[j].file, r[j].line, r[i].file, r[i].line));
        break;
      }
  return out;
}

}  // namespace kc
