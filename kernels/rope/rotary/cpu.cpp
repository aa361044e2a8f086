// RoPE on the CPU in each served form: half-split and interleaved pairs with fp32 angles, the
// half-split form from bf16 cos/sin tables, and the q/k norm before and after the rotation.
#include "rope_cpu.hpp"

namespace {
using kc::rope::Angles;
using kc::rope::Form;
using kc::rope::Norm;
using kc::rope::Pairs;

kc::Entry cpu_entry(const Form& f) { return kc::rope_cpu::envelope(kc::rope::contract(f), f).launch(kc::rope_cpu::launch(f)); }
}  // namespace

KC_KERNEL("rope/halves/bf16", cpu) { return cpu_entry({.pairs = Pairs::halves}); }
KC_KERNEL("rope/interleaved/bf16", cpu) { return cpu_entry({.pairs = Pairs::interleaved}); }
KC_KERNEL("rope/halves_table/bf16", cpu) { return cpu_entry({.angles = Angles::table}); }
KC_KERNEL("rope/halves_norm_before/bf16", cpu) { return cpu_entry({.norm = Norm::before}); }
KC_KERNEL("rope/halves_norm_after/bf16", cpu) { return cpu_entry({.norm = Norm::after}); }
