// What a kernel hands the harness (DESIGN.md §2.2): buffers it declares, hooks that build inputs,
// launch the kernel, and give float64 references. The harness owns the memory.
#pragma once
#include <any>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kc/types.hpp"

namespace kc {

struct Spec;

// Which inputs a gate asks for.
enum class FillKind : uint8_t {
  random,     // gates 2 and 3: values with a spread of magnitudes
  nonfinite,  // gate 1: NaN / +Inf / -Inf planted at known places (Fill::plant picks the case)
  sums,       // gate 4: integers whose fp32 sums are exact, second half of a row mirroring the first
};
const char* fill_name(FillKind k);

struct Fill {
  FillKind kind = FillKind::random;
  // gate 1: index into Rig::plants; -1: the same fill with no plant (gate 1 runs it to tell whether a
  // broken stated rule is a plant's doing: a rig's prepare plants nothing then)
  int plant = 0;
  int64_t pos = -1;  // gate 1: column of the plant (-1: the family's default); --repro shrinks it
  std::string dist;  // gates 2 and 3, random: one of Rig::fills ("" = the family's spread fill)
};

// One declared buffer.
struct BufferDecl {
  std::string name;
  DType type;
  size_t count;
  Role role;
};

// Host-side bytes of one buffer: inputs as the rig built them, outputs as the kernel wrote them.
struct HostBuffer {
  BufferDecl decl;
  std::vector<std::byte> bytes;
  size_t size_bytes() const { return bytes.size(); }
};

// One prepared case: a shape and a fill, with the host copies of every buffer. The rig declares
// buffers in prepare(); after a run the harness copies the outputs back into the same buffers, so
// reference() reads exactly the inputs the kernel saw.
class Case {
 public:
  Case(Shape shape, Fill fill, uint64_t seed) : shape_(std::move(shape)), fill_(fill), seed_(seed) {}
  const Shape& shape() const { return shape_; }
  const Fill& fill() const { return fill_; }
  uint64_t seed() const { return seed_; }

  // Declare a buffer and get its host span (zeroed) to fill. Throws Error on a duplicate name.
  template <class T> std::span<T> in(std::string name, size_t count) { return declare<T>(std::move(name), count, Role::in); }
  template <class T> std::span<T> out(std::string name, size_t count) { return declare<T>(std::move(name), count, Role::out); }

  // Read or write a declared buffer; throws Error naming the buffer if absent or of another type.
  template <class T> std::span<const T> get(std::string_view name) const {
    const HostBuffer& b = find(name, dtype_of<T>());
    return {reinterpret_cast<const T*>(b.bytes.data()), b.decl.count};
  }
  template <class T> std::span<T> get_mut(std::string_view name) {
    HostBuffer& b = const_cast<HostBuffer&>(find(name, dtype_of<T>()));
    return {reinterpret_cast<T*>(b.bytes.data()), b.decl.count};
  }
  double value(std::string_view name, size_t i) const;  // any element as a double

  std::vector<HostBuffer>& buffers() { return buffers_; }
  const std::vector<HostBuffer>& buffers() const { return buffers_; }
  const HostBuffer& buffer(std::string_view name) const;

  // Free-form state a family keeps between prepare() and reference() (parameters, plant rows).
  std::any state;
  // The entry's spec, set by the runner before any hook runs: a family reads the accumulation
  // (depth, ops, ulps) from it when it carries intervals through fp32 steps.
  const Spec* spec = nullptr;

 private:
  template <class T> std::span<T> declare(std::string name, size_t count, Role role) {
    HostBuffer& b = add(BufferDecl{std::move(name), dtype_of<T>(), count, role});
    return {reinterpret_cast<T*>(b.bytes.data()), count};
  }
  HostBuffer& add(BufferDecl d);
  const HostBuffer& find(std::string_view name, DType t) const;

  Shape shape_;
  Fill fill_;
  uint64_t seed_;
  std::vector<HostBuffer> buffers_;
};

// The device-side view a launch gets: a pointer per declared buffer, the shape, and the backend's
// stream (a cudaStream_t on CUDA, null on the CPU).
class Buffers {
 public:
  struct Slot {
    std::string name;
    DType type;
    size_t count;
    Role role;
    void* ptr;
  };
  Buffers(const Shape& shape, void* stream, std::vector<Slot> slots)
      : shape_(shape), stream_(stream), slots_(std::move(slots)) {}
  template <class T> const T* in(std::string_view name) const { return static_cast<const T*>(slot(name, dtype_of<T>()).ptr); }
  template <class T> T* out(std::string_view name) const { return static_cast<T*>(slot(name, dtype_of<T>()).ptr); }
  void* ptr(std::string_view name) const;
  size_t count(std::string_view name) const;
  const Shape& shape() const { return shape_; }
  void* stream() const { return stream_; }
  const std::vector<Slot>& slots() const { return slots_; }

 private:
  const Slot& slot(std::string_view name, DType t) const;
  const Shape& shape_;
  void* stream_;
  std::vector<Slot> slots_;
};

// An output stored as codes of a narrow format and read as the values they decode to, NaN codes
// included: FP8 (e4m3, e5m2: a byte each), FP4 (e2m1: two a byte, the low nibble first), int8 (the
// integer). none: the buffer's own type.
enum class Codes : uint8_t { none, e4m3, e5m2, e2m1, int8 };
const char* codes_name(Codes c);
// How many values an output buffer holds (two a byte for e2m1), and value i of it as a double.
size_t output_count(const HostBuffer& b, Codes c);
double output_value(const HostBuffer& b, Codes c, size_t i);

// The float64 truth for one output buffer.
struct Expected {
  std::string name;          // the output buffer
  std::vector<double> want;  // the formula in float64 on the exact inputs
  std::vector<double> mag;   // per output: the float64 sum of |terms| its sums add (DESIGN.md §2.1);
                             // a family may leave it empty for gate 1's fills (classes alone)
  // Optional, per output: the magnitude the kernel's fp32 steps' relative errors (the spec's ops,
  // mids and ulps) apply to, where it exceeds |want|: a result that cancels carries its steps' errors
  // on its terms, not on itself ((x - mean) rstd w + b: on |(x - mean) rstd w| and |b|; a rotation
  // x0 c - x1 s: on |x0 c| + |x1 s|). Gate 3's bound takes max(|want|, scale). Empty: |want|.
  std::vector<double> scale;
  // Optional: at rounding points, the interval each output must lie in (gate 3 checks this instead
  // of the bound around want). Empty when the kernel has no rounding points.
  std::vector<double> lo, hi;
  // Gate 4: false where the sums cannot be exact in fp32 for this formula (softmax's exp terms);
  // then gate 4 keeps the gamma(depth) term of the bound.
  bool exact_sums = true;
  // Optional, per output (a formula's, kc/formula.hpp): the absolute bound of every other error of
  // the kernel's fp32 steps beside gamma(depth) * mag, carried through the formula's operations; it
  // takes the place of the spec's ulps and of scale (the spec's ops and mids are added, as steps
  // beyond the formula's).
  std::vector<double> err;
  // The output's codes, read as the values they decode to; such an output needs lo and hi (gates 3
  // and 4 check its interval, rounded as the format rounds).
  Codes codes = Codes::none;
  // A stated rule on this output (its text, shown), checked at gate 1 in place of float64's class:
  // the output equals want (ids in a stated order), or with rule_nonfinite, where want is infinite
  // any non-finite value holds (a one-pass update that meets an infinity gives NaN).
  std::string rule;
  bool rule_nonfinite = false;
};

// Gate 4's replays (DESIGN.md §2.4).
enum class SumFormat : uint8_t { f16, bf16 };
enum class SumOrder : uint8_t { chain, halves, lanes32 };
const char* sum_format_name(SumFormat f);
const char* sum_order_name(SumOrder o);
// Sum terms in format f in order o, each partial sum rounded to f (what a kernel summing in f does).
double replay_sum(const double* terms, size_t n, SumFormat f, SumOrder o, size_t stride = 1);

// The hooks. prepare, run and reference are required; the rest as the spec needs them.
struct Rig {
  std::function<void(Case&)> prepare;                         // declare buffers, build inputs
  std::function<void(const Buffers&)> run;                    // launch once (the harness waits)
  std::function<std::vector<Expected>(const Case&)> reference;  // float64 want and magnitude
  // Gate 4: each output recomputed with the sums in format f, order o (the rest in float64), one
  // vector per Expected, in reference()'s order.
  std::function<std::vector<std::vector<double>>(const Case&, SumFormat, SumOrder)> simulate;
  std::function<void(const Buffers&)> replaced;  // runs the kernel this one replaces, same buffers
  // A stated NaN rule, checked on the case's outputs after a run: "" when kept, else what broke.
  std::function<std::string(const Case&)> rule;
  // The spec's stated rule is held per output instead (Expected::rule, a formula's), the other
  // outputs keeping their class checks: then rule is unset.
  bool rules_per_output = false;
  std::function<void()> release;  // frees what the rig holds; called after every entry
  // The form (one of the spec's forms) the launcher takes at a shape on this machine: gate 3 runs
  // each form at a ragged shape (Entry::picks).
  std::function<std::string(const Shape&)> pick;
  std::vector<std::string> plants;  // gate 1 cases, e.g. "NaN in x"; prepare reads Fill::plant
  // Gate 1 at a shape of more than 2^20 elements past the smallest (a case costs up to seconds
  // there) runs only the first this many plants, the single values at their default column; the
  // rest (positions, NaN bits, whole rows) run at the smaller shapes. -1: every plant everywhere.
  int plants_at_scale = -1;
  // Gate 1 at a tile edge or a mid shape (any but the two smallest of each launch form) runs only
  // these plants: the single values at their default column, where a ragged tail puts them, and the
  // whole rows, which a tail padded with a sentinel changes. The others (leading and middle columns,
  // NaN bits) test how a kernel treats a value, which the smallest shapes of the form show. Empty:
  // every plant at every shape up to 2^20 elements.
  std::vector<int> plants_at_edges;
  // Gates 2 and 3: named value distributions the formula can be hurt by (e.g. "offset", "ties"),
  // run beside the spread fill at a few small shapes; prepare reads Fill::dist.
  std::vector<std::string> fills;
};

}  // namespace kc
