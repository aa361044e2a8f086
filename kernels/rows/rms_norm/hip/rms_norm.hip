// HIP build of rms_norm.cuh: the same device source, through kernels/common/kc_gpu.h (CUDA spelling on
// clang's AMDGPU builtins). Built device-only by limits/hip for every served AMD chip (gate 5).
#include "../rms_norm.cuh"

// The launch templates instantiated at the outputs the contracts serve (rms_norm.cu), so their
// kernels are emitted into the code object as nvcc emits them for CUDA.
template void kc::cu::launch_rms_norm_vec<kc::cu::Bf16Out>(const void*, const void*, kc::cu::Bf16Out*, int, int, float, cudaStream_t, int);
template void kc::cu::launch_rms_norm_vec<kc::cu::F16Out>(const void*, const void*, kc::cu::F16Out*, int, int, float, cudaStream_t, int);
template void kc::cu::launch_rms_norm_vec<float>(const void*, const void*, float*, int, int, float, cudaStream_t, int);
