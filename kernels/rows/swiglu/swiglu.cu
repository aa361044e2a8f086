// The CUDA unit of the SwiGLU rows (swiglu.cuh): the launcher its contract (cuda.cpp) calls, and its
// launch.
#include "swiglu.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::swiglu_bf16(const void* g, const void* u, void* y, long n, void* stream) {
  launch_swiglu(g, u, y, n, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/swiglu/bf16", (kc_glu_bf16<kc::cu::kSwigluV, kc::cu::SwigluWord>), 256, 0);
