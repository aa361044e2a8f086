// Margin (kc/report.hpp) as JSON, one spelling for the JSON reporter and the respawn stream:
// {"ratio", "output", "index", "want", "got", "bound" (or "lo" and "hi"), "shape", "fill", "seed"}.
// Internal to core.
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>

#include "kc/report.hpp"

namespace kc {
inline void to_json(nlohmann::json& j, const Margin& m) {
  j = {{"ratio", m.ratio}, {"output", m.output}, {"index", m.index}, {"want", m.want}, {"got", m.got}};
  if (m.interval)
    j["lo"] = m.lo, j["hi"] = m.hi;
  else
    j["bound"] = m.bound;
  j["shape"] = m.shape;
  j["fill"] = m.fill;
  j["seed"] = m.seed;
}
inline void from_json(const nlohmann::json& j, Margin& m) {
  // JSON has no infinity: an infinite bound (an infinite magnitude) is written as null.
  auto num = [&](const char* k) { return j.at(k).is_null() ? double(NAN) : j.at(k).get<double>(); };
  m.ratio = num("ratio");
  m.output = j.at("output").get<std::string>();
  m.index = j.at("index").get<size_t>();
  m.want = num("want");
  m.got = num("got");
  m.interval = j.contains("lo");
  if (m.interval)
    m.lo = num("lo"), m.hi = num("hi");
  else
    m.bound = num("bound");
  m.shape = j.at("shape").get<std::string>();
  m.fill = j.at("fill").get<std::string>();
  m.seed = j.at("seed").get<uint64_t>();
}
}  // namespace kc
