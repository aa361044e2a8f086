// The CUDA unit of RoPE (rope.cuh): the served forms at head dims 64, 128, 192 and 256, their launcher,
// and their launches. (The controls' faulty forms are instantiated in controls/cuda/rope.)
#include "rope.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::cu;

bool kc::cu::rope_bf16(const RopeArgs& a, int pairs, int angles, int norm, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (angles == kRopeComputed && norm == kRopeNoNorm && pairs == kRopeHalves)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNoNorm, kRopeOk>(a, s);
  else if (angles == kRopeComputed && norm == kRopeNoNorm && pairs == kRopeInterleaved)
    launch_rope<kRopeInterleaved, kRopeComputed, kRopeNoNorm, kRopeOk>(a, s);
  else if (angles == kRopeTable && norm == kRopeNoNorm && pairs == kRopeHalves)
    launch_rope<kRopeHalves, kRopeTable, kRopeNoNorm, kRopeOk>(a, s);
  else if (angles == kRopeComputed && norm == kRopeNormBefore && pairs == kRopeHalves)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNormBefore, kRopeOk>(a, s);
  else if (angles == kRopeComputed && norm == kRopeNormAfter && pairs == kRopeHalves)
    launch_rope<kRopeHalves, kRopeComputed, kRopeNormAfter, kRopeOk>(a, s);
  else
    return false;
  return true;
}

// FLAGS: the computed forms' sincosf keeps a frame for its slow path (arguments past 105,615 rad:
// positions to 2^20 reach them): 32 bytes on sm_80 to sm_100, 40 on sm_120 and sm_121 for some head
// dims (gate 5's records, nvcc 13.0); the tables' form none.
#define KC_ROPE_LAUNCHES(NAME, P, A, N, FLAGS)                                        \
  KC_CUDA_LAUNCH(NAME "/d64", (kc_rope<1, P, A, N, kRopeOk>), 256, 0, 1, FLAGS);  \
  KC_CUDA_LAUNCH(NAME "/d128", (kc_rope<2, P, A, N, kRopeOk>), 256, 0, 1, FLAGS); \
  KC_CUDA_LAUNCH(NAME "/d192", (kc_rope<3, P, A, N, kRopeOk>), 256, 0, 1, FLAGS); \
  KC_CUDA_LAUNCH(NAME "/d256", (kc_rope<4, P, A, N, kRopeOk>), 256, 0, 1, FLAGS)

KC_ROPE_LAUNCHES("rope/halves", kRopeHalves, kRopeComputed, kRopeNoNorm, "frame=40");
KC_ROPE_LAUNCHES("rope/interleaved", kRopeInterleaved, kRopeComputed, kRopeNoNorm, "frame=40");
KC_ROPE_LAUNCHES("rope/halves_table", kRopeHalves, kRopeTable, kRopeNoNorm, "-");
KC_ROPE_LAUNCHES("rope/halves_norm_before", kRopeHalves, kRopeComputed, kRopeNormBefore, "frame=40");
KC_ROPE_LAUNCHES("rope/halves_norm_after", kRopeHalves, kRopeComputed, kRopeNormAfter, "frame=40");
