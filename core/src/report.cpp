#include "kc/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kc {

const char* status_name(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::known: return "KNOWN";
    case Status::fixed: return "FIXED";
    case Status::control_red: return "RED";
    case Status::control_green: return "GREEN";
    case Status::na: return "N/A";
    case Status::error: return "ERROR";
    case Status::also: return "ALSO";
  }
  return "?";
}

bool status_ok(Status s) {
  return s == Status::pass || s == Status::known || s == Status::control_red || s == Status::na || s == Status::also;
}

std::string Phases::str() const {
  std::string s;
  const std::pair<const char*, double> all[] = {{"inputs", inputs}, {"upload", upload},       {"kernel", kernel},
                                                {"fetch", fetch},   {"reference", reference}, {"check", check}};
  for (const auto& [name, t] : all)
    if (t >= 0.05) s += fmt::format("{}{} {:.1f} s", s.empty() ? "" : ", ", name, t);
  return s;
}

std::string Summary::line() const {
  std::string s = fmt::format("SUMMARY backend={}", backend);
  if (!absent.empty())
    s += fmt::format(" kernels=not-run({}) known=0 controls={}/{} controls_not_run={}", kernels, controls_red, controls,
                     controls_not_run);
  else
    s += fmt::format(" kernels={}/{} known={} controls={}/{}{}", kernels_passing, kernels, known, controls_red, controls,
                     controls_not_run ? fmt::format(" controls_not_run={}", controls_not_run) : "");
  s += fmt::format(" limit_problems={} failures={} errors={}", limit_problems, failures, errors);
  if (!shard.empty()) s += " shard=" + shard;
  if (!absent.empty()) s += fmt::format(" absent=\"{}\"", absent);
  return s;
}

void Summary::count(Status s) {
  if (status_ok(s)) return;
  if (s == Status::error) ++errors;
  else ++failures;
}

std::vector<EntryTime> slowest_entries(const std::vector<GateEvent>& events, size_t n) {
  std::vector<EntryTime> all;
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (const auto& e : events) {
    if (e.gate == Gate::limits) continue;
    auto [it, fresh] = at.emplace(std::make_pair(e.backend, e.entry), all.size());
    if (fresh) all.push_back({e.backend, e.entry});
    EntryTime& t = all[it->second];
    t.seconds += e.seconds;
    t.phases.inputs += e.phases.inputs;
    t.phases.upload += e.phases.upload;
    t.phases.kernel += e.phases.kernel;
    t.phases.fetch += e.phases.fetch;
    t.phases.reference += e.phases.reference;
    t.phases.check += e.phases.check;
  }
  std::stable_sort(all.begin(), all.end(), [](const EntryTime& a, const EntryTime& b) { return a.seconds > b.seconds; });
  if (all.size() > n) all.resize(n);
  return all;
}

std::unique_ptr<Reporter> make_reporter(const std::string& name, std::ostream& out) {
  if (name == "console") return make_console_reporter(out, false);
  if (name == "json") return make_json_reporter(out);
  if (name == "junit") return make_junit_reporter(out);
  throw Error(fmt::format("unknown reporter '{}' (console, json, junit)", name));
}

}  // namespace kc
