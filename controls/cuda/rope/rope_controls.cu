// RoPE's CUDA controls (rope.cuh's kernel with a fault, half-split form, computed angles): every token
// at position 0, the angle at half its frequency, the q/k norm's bf16 point dropped. The fourth,
// the interleaved pairs under the half-split contract, launches the served interleaved kernel.
#include "../../../kernels/rope/rotary/rope.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::cu;

bool kc::cu::rope_bf16_fault(const RopeArgs& a, int norm, int fault, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (norm == kRopeNoNorm && fault == kRopePositionZero)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNoNorm, kRopePositionZero>(a, s);
  else if (norm == kRopeNoNorm && fault == kRopeHalfFrequency)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNoNorm, kRopeHalfFrequency>(a, s);
  else if (norm == kRopeNormBefore && fault == kRopeNormUnrounded)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNormBefore, kRopeNormUnrounded>(a, s);
  else
    return false;
  return true;
}

// sincosf's frame (40 bytes at most), as the served forms declare it (kernels/rope/rotary/rope.cu).
#define KC_ROPE_CTL(NAME, N, F)                                                                      \
  KC_CUDA_LAUNCH(NAME "/d64", (kc_rope<1, kRopeHalves, kRopeComputed, N, F>), 256, 0, 1, "frame=40");  \
  KC_CUDA_LAUNCH(NAME "/d128", (kc_rope<2, kRopeHalves, kRopeComputed, N, F>), 256, 0, 1, "frame=40"); \
  KC_CUDA_LAUNCH(NAME "/d192", (kc_rope<3, kRopeHalves, kRopeComputed, N, F>), 256, 0, 1, "frame=40"); \
  KC_CUDA_LAUNCH(NAME "/d256", (kc_rope<4, kRopeHalves, kRopeComputed, N, F>), 256, 0, 1, "frame=40")

KC_ROPE_CTL("rope/ctl_position_zero", kRopeNoNorm, kRopePositionZero);
KC_ROPE_CTL("rope/ctl_half_frequency", kRopeNoNorm, kRopeHalfFrequency);
KC_ROPE_CTL("rope/ctl_norm_unrounded", kRopeNormBefore, kRopeNormUnrounded);
