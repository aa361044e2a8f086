// HIP build of add_rms_norm.cuh: the same device source, through kernels/common/kc_gpu.h (CUDA spelling on
// clang's AMDGPU builtins). Built device-only by limits/hip for every served AMD chip (gate 5).
#include "../add_rms_norm.cuh"

// Both forms the contracts serve (add_rms_norm.cu), so their kernels are emitted into the code object.
template void kc::cu::launch_add_rms_norm<false>(const void*, const void*, const void*, void*, void*, int, int, float, cudaStream_t);
template void kc::cu::launch_add_rms_norm<true>(const void*, const void*, const void*, void*, void*, int, int, float, cudaStream_t);
