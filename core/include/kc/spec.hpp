// A kernel's spec (DESIGN.md §2.1) and the entry that pairs it with its rig. Entries are built with
// a fluent builder, usually starting from an input family that already knows the reference:
//
//   KC_KERNEL("rows/rms_norm/f32_out", cpu) {
//     return kc::rows::rms_norm(kc::DType::f32)
//         .served({{"rows", {1, 7, 64}}, {"cols", {64, 1024}}})
//         .tile("cols", 256, 8, 8)
//         .sums(kc::DType::f32, [](const kc::Shape& s) { return s["cols"]; }, 5)
//         .launch([](const kc::Buffers& b) { my_rms_norm(b.in<float>("x"), ...); });
//   }
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kc/rig.hpp"
#include "kc/types.hpp"

namespace kc {

// Why a gate failed. A control is red only when its gate fails for the reason it was built for.
enum class Why : uint8_t {
  none,
  class_mismatch,  // gate 1: an output's class differs from float64's
  rule_broken,     // gate 1: a stated NaN rule does not hold
  bytes_differ,    // gate 2: repeated runs gave other bytes
  input_changed,   // gate 2: an input's bytes changed
  guard_broken,    // gate 2 (and any run): bytes around a buffer were written
  overlap,         // gate 2: an output overlaps an input without being declared in place
  bound,           // gate 3 / 4: an output outside its error bound
  interval,        // gate 3: an output outside its rounding-point interval
  not_bit_equal,   // gate 3: a replacement differs from the kernel it replaces
  weak_fill,       // gate 4: a fp16/bf16 replay missed by less than 100x the bound
  fault,           // the launch faulted (illegal address, trap, exception)
  hang,            // the launch did not return in time
  limit,           // gate 5: a launch over a chip's limit
  launch,          // gate 5 (run time): a launch its records do not declare, or not the form picked
  stream,          // gate 5 (run time): a launch on a stream other than the harness's (an error)
  batch_variant,   // invariance: a row's bytes changed with the batch around it
};
const char* why_name(Why w);

struct Dim {
  std::string name;
  std::vector<int64_t> served;  // the sizes the engine calls it at
  bool tiled = false;
  int64_t tile = 0;   // tiled dims only
  int64_t step = 1;   // a valid size is least + k * step
  int64_t least = 1;
};

struct Ulp {
  std::string function;  // e.g. "expf"
  double ulps;           // its documented error in fp32 ulps
};

// How a kernel computes: its sums (when .sums() declares them; then gate 4 applies) and the fp32
// operations and library functions between its inputs and its outputs (.ulp() alone declares
// those for a kernel with no sums, e.g. an activation).
struct Accum {
  bool summed = false;  // .sums() was called: gate 4 applies, depth is required
  DType type = DType::f32;
  std::function<double(const Shape&)> depth;  // longest chain of roundings at a shape
  int ops = 0;    // fp32 operations after the sums
  int mids = 0;   // intermediate roundings to the output type
  std::vector<Ulp> ulps;
  std::string hidden;  // non-empty: the output's rounding hides a sum's error (gate 4 prints margins)
};

struct Known {
  Gate gate;
  std::string what;
};

struct Spec {
  std::string name;     // family/kernel/variant, unique per backend
  std::string backend;  // cpu, cuda, hip, metal, xpu, opencl
  std::string file;     // where it was registered
  int line = 0;

  std::vector<Dim> dims;  // the served envelope
  std::optional<Accum> sums;
  std::vector<std::pair<std::string, std::string>> in_place;  // {output, input it may alias}
  // Inputs the kernel ahead on the stream writes, where the launcher lets this kernel start before
  // that one ends (CUDA's programmatic dependent launch): read only after waiting on it (gate 2).
  std::vector<std::string> chained;
  // Batch dims whose size, and a row's position along them, its outputs must not depend on (the
  // invariance check): each buffer that grows with such a dim leads with it, one row an index, and
  // an output row's bytes depend only on that row of the inputs and the buffers that do not grow.
  std::vector<std::string> invariant;
  // A shape at which some buffer passes 2^31 elements or bytes, and the dim along which its output
  // rows are independent (as for invariant): the far-offset check runs it there (Entry::far).
  std::string far_dim;
  Shape far_shape;
  std::string replaces;  // the kernel whose bits it must equal ("" when none)
  std::string rule;      // stated NaN rule ("" = propagate)
  std::vector<std::string> launches;  // gate 5 launch record names
  std::vector<std::string> forms;     // the launches its launcher chooses between (Rig::pick); empty: all
  std::vector<Known> known;

  bool control = false;
  std::optional<Gate> control_gate;  // the gate a control must fail
  Why control_why = Why::none;       // and why
  std::string note;                  // free text shown with --list

  const Dim* dim(std::string_view name) const;
  // Every served shape: the product of the served sizes of each dim, in declaration order.
  std::vector<Shape> served_shapes() const;
  // Each dim at its smallest served size.
  Shape smallest() const;
  // A dim's edges: tiled, its least, tile - step, tile, tile + step and largest served size;
  // otherwise its least, least + step and largest served size - step. Valid sizes only, once each.
  std::vector<int64_t> edges(const Dim& d) const;
  // The other dims' size in the second run of a dim's edges: its smallest served size where that
  // is at least 2, else the least valid size from 2 up (a padded row stride shows only at 2 rows);
  // the smallest served size where the dim cannot reach 2.
  int64_t second(const Dim& d) const;
  // Gate 3's shapes: every served shape; each dim at its edges with the others at their smallest
  // served size, then at their second size; the corner with every tiled dim ragged at once (tile +
  // step, or tile - step where that is past the largest) and the one with every tiled dim at its
  // least (others at their smallest served size). Deduplicated.
  std::vector<Shape> gate3_shapes() const;
  // Gate 1's shapes beside the extremes: each tiled dim at its least, tile - step and tile + step,
  // the others at their smallest served size.
  std::vector<Shape> tile_edge_shapes() const;
  // Is every tiled dim that can be ragged (tile above step) off a multiple of its tile at s?
  bool ragged(const Shape& s) const;
  // Is every dim of s within its served sizes' range?
  bool within_served(const Shape& s) const;
  // The searched shape (form_candidates) with every tiled dim ragged and the fewest elements (the
  // first found on a tie) among those keep takes; none where no dim can be ragged or none is.
  std::optional<Shape> smallest_ragged(const std::function<bool(const Shape&)>& keep = {}) const;
  // Sizes to search for launch forms (form_shapes): each dim's least and served sizes, and t - step,
  // t, t + step at t = step * 2^i, step * 3 * 2^i and (tiled) tile * 2^i, tile * 3 * 2^i up to its
  // largest: a search, not every size.
  std::vector<Shape> form_candidates() const;
  // Is the size valid for the dim (>= least, on a step, <= largest served)?
  bool valid(const Dim& d, int64_t size) const;
  // Throws Error naming the entry and the field: empty envelope, bad tile, bad least, a served
  // shape outside the envelope, a control without a gate, an unknown in-place buffer, ...
  void validate() const;
};

// Gate 3's shapes for a launcher with several forms (Rig::pick): a form is run where no fixed
// shape (gate3_shapes) takes it with every tiled dim ragged (not a multiple of its tile, where the
// dim can be), at the fewest elements among form_candidates() that do so (or, where no candidate
// is ragged, that take the form at all). keep, where given, leaves out the candidates it refuses
// (gates 1, 2 and 4 keep to the served ranges). Throws Error where pick names a form the spec lacks.
struct FormShapes {
  std::vector<std::pair<Shape, std::string>> added;  // shape, the launch it takes
  std::vector<std::string> unreached;  // forms no fixed or searched shape takes on this machine
};
FormShapes form_shapes(const Spec& spec, const std::function<std::string(const Shape&)>& pick,
                       const std::vector<Shape>& fixed, const std::function<bool(const Shape&)>& keep = {});

// A registered entry: its spec and its rig.
class Entry {
 public:
  Spec spec;
  Rig rig;

  Entry&& served(std::vector<std::pair<std::string, std::vector<int64_t>>> dims) &&;
  Entry&& tile(const std::string& dim, int64_t tile, int64_t step, int64_t least) &&;
  Entry&& range(const std::string& dim, int64_t least, int64_t step) &&;  // untiled dim's rule
  Entry&& sums(DType acc, std::function<double(const Shape&)> depth, int ops = 0, int mids = 0) &&;
  Entry&& ulp(const std::string& function, double ulps) &&;
  Entry&& ops(int ops, int mids = 0) &&;  // fp32 ops and output-type roundings, for a kernel with no sums
  Entry&& hidden(const std::string& why) &&;  // gate 4: output rounding hides sum errors
  Entry&& in_place(const std::string& out, const std::string& in) &&;
  // The launcher starts the kernel as a dependent of the one ahead (it may read its other inputs,
  // e.g. weights, early); `inputs` are those the one ahead writes. Gate 2 adds a run where they are
  // written late, by an upstream kernel that lets this one start first.
  Entry&& chained(std::vector<std::string> inputs) &&;
  // States that each output row along `dim` (a served dim) is the same bytes whatever the batch's
  // size, the other rows and its position: the invariance check runs the same rows in other batches.
  Entry&& invariant(const std::string& dim) &&;
  // States that the kernel serves `shape`, at which a buffer passes 2^31 elements or bytes (beyond
  // the served lists: one run there costs gigabytes). The far-offset check runs it once and holds
  // the rows along `dim` around every 2^31 and 2^32 crossing, and the first and last, to float64.
  Entry&& far(const std::string& dim, Shape shape) &&;
  Entry&& replaces(const std::string& name, std::function<void(const Buffers&)> hook) &&;
  Entry&& rule(const std::string& text, std::function<std::string(const Case&)> check) &&;
  Entry&& launches(std::vector<std::string> names) &&;
  // The launch the launcher takes at a shape: gate 3 runs every form it takes on this machine at a
  // ragged shape (form_shapes). The forms are the entry's launches, or, where some launch runs beside
  // every form (a split-K meeting), the ones named.
  Entry&& picks(std::function<std::string(const Shape&)> pick) &&;
  Entry&& picks(std::vector<std::string> forms, std::function<std::string(const Shape&)> pick) &&;
  Entry&& known(Gate gate, const std::string& what) &&;
  Entry&& control(Gate gate, Why why) &&;
  Entry&& note(const std::string& text) &&;
  Entry&& launch(std::function<void(const Buffers&)> run) &&;
  Entry&& release(std::function<void()> fn) &&;
};

}  // namespace kc
