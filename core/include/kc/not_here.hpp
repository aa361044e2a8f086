// Thrown by a control's builder where this device cannot run its planted fault (a wgmma fault on a
// GPU whose loaded image has no wgmma): the runner counts the control apart as not run
// (controls_not_run), never green or red. A kernel's builder throwing it is an error: a served
// kernel is never skipped.
#pragma once
#include <stdexcept>
#include <string>

namespace kc {
struct NotHere : std::runtime_error {
  explicit NotHere(const std::string& why) : std::runtime_error(why) {}
};
}  // namespace kc
