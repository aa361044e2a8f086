// Reporters, in the manner of Catch2's: the runner emits events, each reporter (console, JSON,
// JUnit XML; one file each) renders them. A reporter never decides a verdict.
#pragma once
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kc/types.hpp"

namespace kc {

enum class Status : uint8_t {
  pass,
  fail,
  known,         // a known finding's gate failed as its entry says
  fixed,         // a known finding's gate passed: the run fails until the entry is removed
  control_red,   // a control's gate failed for the reason it was built for
  control_green, // a control's gate passed, or failed for another reason: the run fails
  na,            // the gate does not apply (e.g. gate 4 on a kernel with no sums): never a pass
  error,         // the entry could not run (bad spec, fault, hang)
  also,          // a control failed a gate besides the one it was built for: shown, not held against it
};
const char* status_name(Status s);
bool status_ok(Status s);  // pass, known, control_red, na, also

// Where a gate's time went, in seconds: making inputs, moving them to the device, the launches,
// fetching outputs (with guard checks), float64 references (and gate 4's replays), comparing.
struct Phases {
  double inputs = 0, upload = 0, kernel = 0, fetch = 0, reference = 0, check = 0;
  std::string str() const;  // "inputs 1.2 s, upload 0.3 s, ..."; phases under 0.05 s left out
};

// How near a gate 3 that passed came to its bound: the worst over all its cases and outputs of
// |got - want| / bound, or, for an output checked against a rounding-point interval, the distance of
// got from the interval's middle over half its width (1 at an end). Non-finite outputs that match
// float64's class have no distance and are left out.
struct Margin {
  double ratio = 0;
  std::string output;  // the output buffer
  size_t index = 0;
  double want = 0, got = 0;
  bool interval = false;  // checked against [lo, hi] (bound unused), not a bound around want
  double bound = 0, lo = 0, hi = 0;
  std::string shape;   // the case's shape (Shape::str)
  std::string fill;    // the case's named fill (Fill::dist), "" for the spread fill
  uint64_t seed = 0;   // the seed of the pass it was found under (one of --seeds)
};

// One gate's verdict on one entry.
struct GateEvent {
  std::string backend, entry;
  Gate gate;
  Status status;
  std::string why;      // why_name of the failure reason, "" on pass
  std::string shape;    // where it failed (or the last shape checked)
  std::string detail;   // worst output: index, want, got, bound; margins; control reason
  double seconds = 0;
  Phases phases{};
  std::optional<Margin> margin{};  // gate 3 where its cases passed within their bounds (not bit-equality)
};

struct Summary {
  std::string backend;
  std::string absent;  // non-empty: gates 1-4 not run here, and why
  int kernels = 0, kernels_passing = 0;
  int known = 0;
  int controls = 0, controls_red = 0;
  int controls_not_run = 0;  // gates 1-4 controls of an absent backend, or ones it cannot prove (chains())
  int limit_problems = 0;
  // What went wrong, by the status of its line: failures counts FAIL, GREEN and FIXED lines (a gate
  // that found a problem, a control that stayed green, a known finding that no longer fails); errors
  // counts ERROR lines and problems of the run itself (an entry that could not run: a bad spec, a
  // fault, a hang, a lost device, a launch on another stream; a backend asked for that is absent).
  int failures = 0;
  int errors = 0;
  // "I/N" where the run was shard I of N (--shard): the counts are that shard's entries alone.
  std::string shard;
  // Counts a line of this status that is not ok (status_ok) in failures or errors.
  void count(Status s);
  std::string line() const;  // "SUMMARY backend=cpu kernels=9/9 known=0 controls=7/7 ... failures=0 errors=0"
};

// One entry's time over all its gates, by phase. A run ends with its slowest entries, so the next
// entry that grows names itself.
struct EntryTime {
  std::string backend, entry;
  double seconds = 0;
  Phases phases{};
};
// The `n` entries of `events` that took longest, slowest first (gate 5's launches left out).
std::vector<EntryTime> slowest_entries(const std::vector<GateEvent>& events, size_t n = 10);

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(uint64_t /*seed*/) {}
  virtual void backend_begin(const std::string& /*backend*/, const std::string& /*device*/, const std::string& /*absent*/) {}
  virtual void gate(const GateEvent& e) = 0;
  virtual void note(const std::string& /*backend*/, const std::string& /*text*/) {}  // repro, margins, sets
  virtual void summary(const Summary& s) = 0;
  virtual void timings(const std::vector<EntryTime>& /*slowest*/) {}  // after the last summary
  virtual void end() {}
};

// margins: a line under each gate line that has a Margin (--margins).
std::unique_ptr<Reporter> make_console_reporter(std::ostream& out, bool color, bool margins = false);
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_junit_reporter(std::ostream& out);
// By name: console, json, junit. Throws Error naming the reporter when unknown.
std::unique_ptr<Reporter> make_reporter(const std::string& name, std::ostream& out);

}  // namespace kc
