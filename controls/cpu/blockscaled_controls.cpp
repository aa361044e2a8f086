// Planted controls for the block-scaled family on the CPU, each the GEMV with one fault, f32 out so
// no output rounding hides it. The scale and nibble faults permute what is read, so gate 1's
// classes stay the formula's and only gate 3's values show them; the NaN-code one shows at gate 1.
#include "../../kernels/blockscaled/bs_entry.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using bs_cpu::Fault;
using bs_cpu::Form;
using W = blockscaled::Weights;
using A = blockscaled::Acts;

Entry control(Form f, Fault fault, Gate g, Why why) {
  return bs_cpu::gemv_entry(f, DType::f32).control(g, why).launch([f, fault](const Buffers& b) {
    bs_cpu::gemv<float>(b, f, fault);
  });
}
}  // namespace

// Each 128 x 128 block's sum times the next block's scale along K.
KC_CONTROL("blockscaled/ctl_neighbour_scale/fp8_block128", cpu) {
  return control({W::fp8_block128, A::bf16}, Fault::neighbour_scale, Gate::shapes, Why::bound);
}
// NVFP4's 16-element blocks, the same fault.
KC_CONTROL("blockscaled/ctl_neighbour_scale/nvfp4", cpu) {
  return control({W::nvfp4, A::bf16}, Fault::neighbour_scale, Gate::shapes, Why::bound);
}
// MXFP4's E8M0 scales read with bias 126: every output doubled.
KC_CONTROL("blockscaled/ctl_e8m0_off_by_one/mxfp4", cpu) {
  return control({W::mxfp4, A::bf16}, Fault::e8m0_off_by_one, Gate::shapes, Why::bound);
}
// E8M0 code 0 decoded by its bits as an fp32 exponent: 0, not 2^-127. Only a fill that draws code 0
// (every e8m0 code) shows it.
KC_CONTROL("blockscaled/ctl_e8m0_code0_zero/mxfp4", cpu) {
  return control({W::mxfp4, A::bf16}, Fault::e8m0_code0_zero, Gate::shapes, Why::bound);
}
// An FP4 byte's two elements read from each other's nibble.
KC_CONTROL("blockscaled/ctl_swapped_nibbles/mxfp4", cpu) {
  return control({W::mxfp4, A::bf16}, Fault::swapped_nibbles, Gate::shapes, Why::bound);
}
// e4m3's NaN codes read as +-480, as a decode that forgets them does: finite where float64 is NaN.
KC_CONTROL("blockscaled/ctl_nan_code_as_number/fp8_tensor", cpu) {
  return control({W::fp8_tensor, A::bf16}, Fault::nan_code_as_number, Gate::nonfinite, Why::class_mismatch);
}
