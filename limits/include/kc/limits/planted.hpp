// The verdict of one launch on one chip, shared by the HIP, XPU and Metal audits: a control counts
// as red only when the very kind of problem it was planted for is found, never for another one.
#pragma once
#include <algorithm>
#include <string>

#include "kc/audit.hpp"

namespace kc::limits {

// `Check` has `problem`, `kinds` (the kinds of problem found) and `message`.
template <class Check>
void set_verdict(kc::AuditLine& line, const std::string& control, const Check& c) {
  if (!line.control) {
    line.problem = c.problem;
    line.message = c.message;
    return;
  }
  line.problem = std::find(c.kinds.begin(), c.kinds.end(), control) != c.kinds.end();
  line.message = std::string(line.problem ? "planted " : "planted problem NOT found: ") + control + ": " + c.message;
}

}  // namespace kc::limits
