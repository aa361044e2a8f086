// Phases (kc/report.hpp) as JSON, one spelling for the JSON reporter and the respawn stream.
// Internal to core.
#pragma once
#include <nlohmann/json.hpp>

#include "kc/report.hpp"

namespace kc {
inline void to_json(nlohmann::json& j, const Phases& p) {
  j = {{"inputs", p.inputs}, {"upload", p.upload},       {"kernel", p.kernel},
       {"fetch", p.fetch},   {"reference", p.reference}, {"check", p.check}};
}
inline void from_json(const nlohmann::json& j, Phases& p) {
  p.inputs = j.at("inputs").get<double>();
  p.upload = j.at("upload").get<double>();
  p.kernel = j.at("kernel").get<double>();
  p.fetch = j.at("fetch").get<double>();
  p.reference = j.at("reference").get<double>();
  p.check = j.at("check").get<double>();
}
}  // namespace kc
