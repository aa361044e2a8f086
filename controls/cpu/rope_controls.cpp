// RoPE's planted faults on the CPU, each red at gate 3: every token at position 0, the angle at half
// its frequency, the interleaved pairs in the half-split form (each against the fp32 angle's bound),
// and a q/k norm that keeps its normed value in fp32 (outside the bf16 point's intervals).
#include "../../kernels/rope/rotary/rope_cpu.hpp"

namespace {
using kc::rope::Form;
using kc::rope::Norm;
using kc::rope_cpu::Fault;

kc::Entry control(const Form& f, Fault fault, kc::Why why, const char* note) {
  return kc::rope_cpu::envelope(kc::rope::contract(f), f)
      .control(kc::Gate::shapes, why)
      .note(note)
      .launch(kc::rope_cpu::launch(f, fault));
}
}  // namespace

KC_CONTROL("rope/ctl_position_zero", cpu) {
  return control({}, Fault::position_zero, kc::Why::bound, "every token rotated at position 0");
}
KC_CONTROL("rope/ctl_half_frequency", cpu) {
  return control({}, Fault::half_frequency, kc::Why::bound, "the angle at half its frequency");
}
KC_CONTROL("rope/ctl_pairs_interleaved", cpu) {
  return control({}, Fault::pairs_swapped, kc::Why::bound, "the half-split form rotates the pairs (2i, 2i + 1)");
}
KC_CONTROL("rope/ctl_norm_unrounded", cpu) {
  return control({.norm = Norm::before}, Fault::norm_unrounded, kc::Why::interval,
                 "the q/k norm's value kept in fp32: its bf16 rounding point dropped");
}
