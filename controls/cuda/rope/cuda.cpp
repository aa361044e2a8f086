// Registrations of RoPE's CUDA controls (rope_controls.cu), each red at gate 3 like its CPU twin
// (controls/cpu/rope_controls.cpp), at decode sizes.
#include "../../../kernels/rope/rotary/rope_cuda.hpp"

namespace {
using kc::rope::Form;
using kc::rope::Norm;
using kc::rope::Pairs;

kc::Entry control(const Form& f, const std::string& name, kc::Why why, const char* note,
                  std::function<void(const kc::Buffers&)> run) {
  return kc::rope_cuda::envelope(kc::rope::contract(f), f, name, {1, 7})
      .control(kc::Gate::shapes, why)
      .note(note)
      .launch(std::move(run));
}

std::function<void(const kc::Buffers&)> fault(const Form& f, int fault) {
  return [f, fault](const kc::Buffers& b) {
    if (!kc::cu::rope_bf16_fault(kc::rope_cuda::args_of(b, f), int(f.norm), fault, b.stream()))
      throw kc::Error("no such RoPE control kernel");
  };
}
}  // namespace

KC_CONTROL("rope/ctl_position_zero", cuda) {
  return control({}, "rope/ctl_position_zero", kc::Why::bound, "every token rotated at position 0",
                 fault({}, kc::cu::kRopePositionZero));
}
KC_CONTROL("rope/ctl_half_frequency", cuda) {
  return control({}, "rope/ctl_half_frequency", kc::Why::bound, "the angle at half its frequency",
                 fault({}, kc::cu::kRopeHalfFrequency));
}
KC_CONTROL("rope/ctl_norm_unrounded", cuda) {
  const Form f{.norm = Norm::before};
  return control(f, "rope/ctl_norm_unrounded", kc::Why::interval,
                 "the q/k norm's value kept in fp32: its bf16 rounding point dropped",
                 fault(f, kc::cu::kRopeNormUnrounded));
}
// The half-split contract served by the interleaved kernel: pairs (2i, 2i + 1) where (i, i + dim/2).
KC_CONTROL("rope/ctl_pairs_interleaved", cuda) {
  return control({}, "rope/interleaved", kc::Why::bound, "the half-split form rotates the pairs (2i, 2i + 1)",
                 [](const kc::Buffers& b) {
                   const Form inter{.pairs = Pairs::interleaved};
                   kc::cu::rope_bf16(kc::rope_cuda::args_of(b, inter), int(Pairs::interleaved), 0, 0, b.stream());
                 });
}
