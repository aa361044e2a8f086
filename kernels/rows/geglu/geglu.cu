// The CUDA unit of the GeGLU rows (geglu.cuh): the launcher its contract (cuda.cpp) calls, and its
// launch.
#include "geglu.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::geglu_bf16(const void* g, const void* u, void* y, long n, void* stream) {
  launch_geglu(g, u, y, n, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/geglu/bf16", (kc_glu_bf16<kc::cu::kGegluV, kc::cu::GegluWord>), 256, 0);
