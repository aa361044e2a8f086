// Runs one prepared case on a backend: the harness's buffers between guard regions, poison before
// every launch, outputs fetched back into the case. Internal to core.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kc/backend.hpp"
#include "kc/spec.hpp"

namespace kc::detail {

// Bytes of guard before and after every buffer; buffers start 256-byte aligned.
inline constexpr size_t guard_bytes = 1024;

// A deterministic byte pattern for poison and guards: changes with `run` so an output left unwritten
// never holds a previous run's value.
void pattern(std::byte* dst, size_t n, uint64_t run, uint64_t stream);
// The guard around a buffer of type t: pattern(), and for a float type every element of it a NaN
// (sign and payload from the pattern), so a value read past an input poisons what it reaches.
void guard_pattern(std::byte* dst, size_t n, DType t, uint64_t run, uint64_t stream);

class DeviceCase {
 public:
  // Allocates every declared buffer (in-place pairs share one region), uploads the inputs. The
  // case must outlive it: its input bytes stand for what was uploaded (not copied; fetch() never
  // writes an input).
  DeviceCase(Backend& b, const Spec& spec, const Case& c);
  ~DeviceCase();
  DeviceCase(const DeviceCase&) = delete;
  DeviceCase& operator=(const DeviceCase&) = delete;

  // Poisons outputs and guards with pattern(run), restores in-place buffers, launches fn and waits.
  SyncResult launch(const std::function<void(const Buffers&)>& fn, uint64_t run, double timeout_s);
  // Copies every output (and in-place) buffer back into the case's host buffers.
  void fetch(Case& c);
  // Guard bytes that changed since the last launch: one line per buffer and side.
  std::vector<std::string> broken_guards();
  // Inputs whose device bytes differ from what was uploaded: "x[17]: 1.5 became 0".
  std::vector<std::string> changed_inputs();
  // Outputs that overlap an input (or another output) without an in-place declaration.
  std::vector<std::string> overlaps() const;
  const Buffers& buffers() const { return *view_; }

 private:
  struct Region {
    std::string name;
    DType type;
    Role role;
    size_t bytes;
    std::byte* base = nullptr;  // allocation start
    std::byte* data = nullptr;  // base + guard
    size_t total = 0;
    int host = -1;               // index of the case's host buffer
    bool in_place_out = false;   // an output sharing an input's region
    bool fenced = false;         // an input ending where an access faults (Backend::alloc_fenced)
    uint64_t guard_run = 0;
  };
  Backend& b_;
  const Spec& spec_;
  std::vector<Region> regions_;
  std::vector<const std::byte*> uploaded_;  // the case's input bytes uploaded, per region (null: none)
  std::unique_ptr<Buffers> view_;
  Shape shape_;
  uint64_t last_run_ = 0;
  bool faulted_ = false;
};

}  // namespace kc::detail
