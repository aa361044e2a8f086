// HIP build of geglu.cuh: the same device source, through kernels/common/kc_gpu.h (CUDA spelling on
// clang's AMDGPU builtins). Built device-only by limits/hip for every served AMD chip (gate 5).
#include "../geglu.cuh"
