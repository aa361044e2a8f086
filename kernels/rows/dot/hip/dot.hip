// HIP build of dot.cuh: the same device source, through kernels/common/kc_gpu.h (CUDA spelling on
// clang's AMDGPU builtins). Built device-only by limits/hip for every served AMD chip (gate 5).
#include "../dot.cuh"

// The kernel at both row counts the launcher picks (dot.cuh), emitted as nvcc emits them for CUDA.
template __global__ void kc_row_dot<1>(const kc_u4*, const kc_u4*, float*, int, int, int);
template __global__ void kc_row_dot<2>(const kc_u4*, const kc_u4*, float*, int, int, int);
