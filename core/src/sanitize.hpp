// --sanitize: each CUDA entry's launches at its smallest shapes under compute-sanitizer's tools, one
// fresh process an entry and tool (this executable re-run under the sanitizer with the hidden
// --sanitize-launches), so each finding is the entry's alone; a finding on a served kernel is an
// ERROR line naming the entry and the tool.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "kc/backend.hpp"
#include "kc/runner.hpp"

namespace kc::detail {

// The tools --sanitize takes, in the order they run.
const std::vector<std::string>& sanitizer_tools();
// "memcheck,racecheck" (or "all") as tools, in sanitizer_tools()'s order; throws Error naming an
// unknown or empty one.
std::vector<std::string> parse_sanitizers(const std::string& text);
// compute-sanitizer's path: $KC_COMPUTE_SANITIZER, else on PATH, else in $CUDA_HOME/bin or
// $CUDA_PATH/bin; "" where none is found (the caller names what it searched).
std::string find_compute_sanitizer();
// The command that runs one entry's launches under one tool: the sanitizer, its options, then this
// executable (self, the real path: /proc/self/exe would name the sanitizer) with the run's options.
std::vector<std::string> sanitizer_command(const std::string& sanitizer, const std::string& tool, const std::string& self,
                                           const RunOptions& opt, const std::string& entry);

// What one sanitized process said: the sanitizer's report headers (one a finding), its error count,
// and the child's own lines (launches made, or the error that stopped it).
struct Sanitized {
  std::vector<std::string> findings;
  long errors = -1;     // "ERROR SUMMARY: N errors", -1 where none was printed
  int launches = -1;    // the child's "kc-sanitize: done" line, -1 where none came
  std::string trouble;   // the child's error line
  std::string not_here;  // why the entry cannot run on this device (kc::NotHere)
};
Sanitized read_sanitized(std::istream& out);

// The parent: every selected entry of b under every tool, a line each (PASS, ERROR, or a control's
// RED), then a SANITIZE summary. Returns the exit code: 1 for a finding on a served kernel or an
// entry that could not be sanitized.
int run_sanitizers(const RunOptions& opt, const std::vector<std::string>& tools, const std::string& sanitizer,
                   Backend& b, std::ostream& out);
// The child (--sanitize-launches): the one selected entry's launches at its smallest shapes, once
// each, then "kc-sanitize: done <name> launches=N" on stdout. Returns its exit code.
int sanitize_launches(const RunOptions& opt, Backend& b);

}  // namespace kc::detail
