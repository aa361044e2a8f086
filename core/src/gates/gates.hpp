// Gates 1-4 (one file each) and what they share. Internal to core.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../exec.hpp"
#include "kc/runner.hpp"

namespace kc::detail {

// Shapes of more than this many elements (the product of the dims) are a projection's weights of
// hundreds of MB, where one case costs more than its kernel: gate 2 runs only its five runs at the
// extremes there, not its pair at each gate 3 shape.
inline constexpr int64_t kLargeCase = int64_t(1) << 24;
// Gate 1 runs every plant at the two smallest shapes of each launch form, the single values at the last
// column and the whole rows (Rig::plants_at_edges) at its other shapes of up to this many elements
// past the smallest (tile edges, whole rows of up to 32,768 columns); above, only the single values
// (Rig::plants_at_scale): a case costs up to seconds at prompt sizes.
inline constexpr int64_t kAllPlantsCase = int64_t(1) << 20;

// One gate's finding on one entry.
struct Outcome {
  bool applies = true;   // false: the gate does not apply (detail says why)
  bool failed = false;
  Why why = Why::none;
  std::string shape;     // the failing shape, or the shapes checked
  std::string detail;
  std::vector<std::string> notes;  // margins and the like, printed with the verdict
  Shape fail_shape;      // for --repro
  Fill fail_fill;
  std::optional<Margin> margin;  // compare() that passed: its nearest output to the bound (margin.hpp)
};

// What gate 5 saw of an entry's own launches at run time, over every gate's runs (launches.cpp).
struct LaunchWatch {
  std::string off;                    // why the backend could not watch ("" while it could)
  int runs = 0;                       // runs watched to the end
  std::map<std::string, int> names;   // launch record -> runs that launched it
  // Distinct problems in the order found, each with the shape of its first run.
  std::vector<std::pair<std::string, std::string>> problems;
  int problem_runs = 0;
  // Launches on a stream other than the harness's, likewise (an error: the run raced its checks).
  std::vector<std::pair<std::string, std::string>> streams;
  int stream_runs = 0;
};

struct GateCtx {
  Backend& backend;
  const Entry& entry;
  const RunOptions& opt;
  uint64_t seed = 0;  // the seed of this pass over the gates (one of the run's --seeds)
  uint64_t run = 0;  // counts launches: each gets its own poison
  Phases phases{};   // the current gate's time, by phase (the runner resets it per gate)
  LaunchWatch watch{};
  // Gate 1's first launch at each shape under each seed ({seed, Shape::str}): its fill and a hash of
  // its output bytes. Gate 1 launches first, so gate 2 runs that case again to compare with it.
  std::map<std::pair<uint64_t, std::string>, std::pair<Fill, uint64_t>> first_runs{};
  uint64_t case_seed(Gate g, const Shape& s, const Fill& f) const;
};

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Adds the time from its construction to its end to one phase: `Timed t(ctx.phases.reference);`.
class Timed {
 public:
  explicit Timed(double& acc) : acc_(acc), t0_(Clock::now()) {}
  ~Timed() { acc_ += seconds_since(t0_); }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& acc_;
  Clock::time_point t0_;
};
// Runs f() and adds its time to one phase: `auto want = timed(ctx.phases.reference, [&] { ... });`.
template <class F> auto timed(double& acc, F&& f) {
  Timed t(acc);
  return f();
}

// A case run once: the case with its outputs, or the problem that stopped it.
struct Ran {
  Case c;
  std::optional<Outcome> problem;
};
Case prepare_case(GateCtx& ctx, Gate g, const Shape& s, Fill f);
// Runs fn (default: the entry's launch) once on a new case, or on a copy of `inputs`.
Ran run_case(GateCtx& ctx, Gate g, const Shape& s, Fill f, const std::function<void(const Buffers&)>* fn = nullptr,
             const Case* inputs = nullptr);
// The same on a case the caller hands over (no copy of inputs that run to gigabytes).
Ran run_case(GateCtx& ctx, const Shape& s, Fill f, Case&& inputs, const std::function<void(const Buffers&)>* fn = nullptr);

// The entry's own launch on a case (gates 1-4 launch it through here): where the backend watches
// launches, what it started is checked against the entry's launch records and its pick.
// fn, where given, runs in the launch's place (it calls the entry's launch among its own work).
SyncResult launch_entry(GateCtx& ctx, DeviceCase& dev, const Shape& s,
                        const std::function<void(const Buffers&)>* fn = nullptr);
// Gate 5's run-time verdict on the entry's launches (not applicable where nothing was watched).
Outcome gate_launches(GateCtx& ctx);

// The bound's coefficients at one shape and output type: |o - w| <= r|w| + a max(|w|, sc) + g m + floor,
// r the output's own rounding, a the fp32 steps' and intermediate roundings' relative error, applied
// to the output's scale where the rig states one (Expected::scale: a result that cancels). A
// formula's output (Expected::err) carries its own steps and functions' ulps: the spec's ops and mids
// are added to it, and the ulps of functions the formula does not read (formula::reads_ulp; ulps_a:
// the part of a that the ulps it reads make, left out then). The same for
// every output of a buffer: a loop over outputs computes them once (they call the spec's depth).
struct Coeffs {
  double r = 0, a = 0, ulps_a = 0, g = 0, floor = 0, uo = 0;
  double at(double w, double m, double sc = 0) const {
    return r * std::fabs(w) + a * std::max(std::fabs(w), sc) + g * std::fabs(m) + floor;
  }
  double at(const Expected& e, size_t i) const {
    const double w = e.want[i], m = e.mag.empty() ? 0 : e.mag[i];
    if (e.err.empty()) return at(w, m, e.scale.empty() ? 0 : e.scale[i]);
    return r * std::fabs(w) + (a - ulps_a) * std::fabs(w) + g * std::fabs(m) + e.err[i] * (1 + uo) + floor;
  }
};
Coeffs error_coeffs(const Spec& spec, DType out, const Shape& s, bool with_gamma);
// The type whose rounding an output is bounded by: a code output's (checked by its interval alone) is none.
DType rounding_type(const HostBuffer& hb, const Expected& e);
// The gate-3 bound for one output (DESIGN.md §2.4); with_gamma false gives gate 4's exact-sum bound.
double error_bound(const Spec& spec, DType out, double want, double mag, const Shape& s, bool with_gamma,
                   double scale = 0);
// The same for output i of Expected e on buffer hb (a formula's err, a code output's format).
double bound_at(const Spec& spec, const HostBuffer& hb, const Expected& e, size_t i, const Shape& s, bool with_gamma);

// Compares a case's outputs with its Expected values: bound or interval per output. with_gamma
// false (gate 4) drops the gamma(depth) term for outputs whose Expected says the sums are exact.
// Returns the worst violation as a failed Outcome, or an Outcome that passed with its margin.
// bounds_at: the shape whose bound applies, where c holds some rows of a larger case (default c's).
Outcome compare(const Spec& spec, const Case& c, const std::vector<Expected>& exp, bool with_gamma,
                const Shape* bounds_at = nullptr);

// A hash of a case's output bytes.
uint64_t output_hash(const Case& c);

// The smallest and largest served shapes.
std::vector<Shape> extreme_shapes(const Spec& s);
// Gates 1, 2 and 4's shapes: the given ones (default: the extreme ones), and for a launcher of several
// forms one shape for each form none takes (form_shapes' choice among the searched shapes inside the
// served ranges), so that every kernel the launcher may run meets them.
std::vector<Shape> form_extreme_shapes(const GateCtx& ctx, std::vector<Shape> shapes = {});
// Gate 3's shapes (Spec::gate3_shapes) and, for a launcher of several forms, the ones form_shapes
// adds (also returned in forms, where given). Gate 2 runs twice at each.
std::vector<Shape> gate3_all_shapes(const GateCtx& ctx, FormShapes* forms = nullptr);

// The verdict of gate g on an entry from what it found and what the spec says of it: a known
// finding, a control red or green, an error for a fault or a hang (runner.cpp).
Status judge(const Spec& s, Gate g, const Outcome& o, std::string& detail);

// Each gate over its cases, and each gate on one case (used by --repro to re-check smaller ones).
Outcome gate_nonfinite(GateCtx& ctx);
Outcome gate_repeat(GateCtx& ctx);
Outcome gate_shapes(GateCtx& ctx);
Outcome gate_sums(GateCtx& ctx);
// The invariance check (invariance.cpp): a stated batch dim's rows run in other batches.
Outcome gate_invariance(GateCtx& ctx);
// The far-offset check (far.cpp): a stated far shape's rows around 2^31 and 2^32.
Outcome gate_far(GateCtx& ctx);
Outcome check_case(GateCtx& ctx, Gate g, const Shape& s, const Fill& f);
Outcome check_nonfinite(GateCtx& ctx, const Shape& s, const Fill& f);
Outcome check_repeat(GateCtx& ctx, const Shape& s, const Fill& f);
Outcome check_shapes(GateCtx& ctx, const Shape& s, const Fill& f);
Outcome check_sums(GateCtx& ctx, const Shape& s, const Fill& f);

}  // namespace kc::detail
